//! Shared state of one accumulator: interners, options and reusable scratch buffers.

use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashSet;

use super::limits::REVISIT_LIMIT;
use super::options::Options;
use super::terms::{Keys, Terms};

/// How a container met during a walk should be treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Walk into it.
    Open,
    /// It is its own ancestor, or shared references already expanded too far: infer `{}`.
    Cut,
}

/// Interners, options and scratch space threaded through every walk.
#[derive(Clone, Default)]
pub(crate) struct Ctx {
    pub keys: Keys,
    pub terms: Terms,
    pub opts: Options,
    /// The epoch key identities are valid in (unique across accumulators, never 0 once set).
    pub epoch: u64,
    /// Set while a JSON Lines line is added whose keys are those of the line before it, in
    /// every object reached through objects alone (see [`Slot::add_record`]).
    ///
    /// [`Slot::add_record`]: super::slot::Slot::add_record
    pub same_keys: bool,
    /// How many samples the one being added stands for (see `Accumulator::add_weighted`).
    pub weight: u64,
    path: Vec<usize>,
    seen: HashSet<usize>,
    revisits: u64,
    allowance: u64,
    pool: Vec<Vec<u32>>,
}

impl Ctx {
    pub fn new(opts: Options) -> Ctx {
        Ctx {
            opts,
            weight: 1,
            ..Ctx::default()
        }
    }

    /// Starts a new key-identity epoch: identities met before it are never trusted again.
    pub fn begin_epoch(&mut self) {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        self.epoch = NEXT.fetch_add(1, Ordering::Relaxed);
    }

    /// Forgets the shared containers of the previous sample.
    pub fn begin_sample(&mut self) {
        self.path.clear();
        self.seen.clear();
        self.revisits = 0;
        self.allowance = REVISIT_LIMIT;
    }

    /// Enters a container with an identity and `len` children; pair with [`Ctx::leave`] when
    /// it returns `Open`.
    pub fn enter(&mut self, identity: usize, len: usize) -> Visit {
        if self.path.contains(&identity) {
            return Visit::Cut;
        }
        if self.seen.insert(identity) {
            self.allowance = self.allowance.saturating_add(len as u64);
        } else {
            self.revisits += 1;
            if self.revisits > self.allowance {
                return Visit::Cut;
            }
        }
        self.path.push(identity);
        Visit::Open
    }

    /// Leaves the container entered last.
    pub fn leave(&mut self) {
        self.path.pop();
    }

    /// A cleared scratch buffer.
    pub fn take(&mut self) -> Vec<u32> {
        self.pool.pop().unwrap_or_default()
    }

    /// Returns a scratch buffer for reuse.
    pub fn give(&mut self, mut buffer: Vec<u32>) {
        buffer.clear();
        if self.pool.len() < 64 {
            self.pool.push(buffer);
        }
    }
}
