//! The public accumulator (`SchemaBuilder` in Python) and `value_to_schema`.

use super::ctx::Ctx;
use super::json::Json;
use super::merge::Merger;
use super::options::Options;
use super::render::Render;
use super::slot::{Slot, Variants};
use super::source::Source;
use super::walk::Pure;

/// Accumulates samples into a summary that renders as `samples_to_schema` of all of them.
///
/// Adding is a fold and [`Accumulator::merge`] is the matching join, so samples can be split
/// across threads, processes or machines and combined in any order with the same result.
#[derive(Clone)]
pub struct Accumulator {
    ctx: Ctx,
    root: Slot,
    samples: u64,
}

impl std::fmt::Debug for Accumulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accumulator")
            .field("options", &self.ctx.opts)
            .field("samples", &self.samples)
            .finish_non_exhaustive()
    }
}

/// The inferred schema would be larger than [`SCHEMA_NODE_LIMIT`](super::SCHEMA_NODE_LIMIT)
/// schema objects (shared references that expand exponentially).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaTooLarge;

/// Two accumulators built with different options cannot be merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionsMismatch;

impl Accumulator {
    /// An empty accumulator.
    pub fn new(opts: Options) -> Accumulator {
        Accumulator {
            ctx: Ctx::new(opts),
            root: Slot::new(opts.max_depth, true),
            samples: 0,
        }
    }

    /// The options it was built with.
    pub fn options(&self) -> Options {
        self.ctx.opts
    }

    /// How many samples were added (merged ones included).
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Tells the accumulator that every sample will be a record, so the top level's list of
    /// distinct record schemas (only rendered when samples mix kinds) is never built. A
    /// non-record added anyway still gives a sound, merged schema.
    pub fn records_only(&mut self) {
        self.root.variants = Variants::Overflow;
    }

    /// Adds one sample.
    pub fn add<'a, S: Source<'a>>(&mut self, sample: S) {
        if S::KEY_IDENTITIES {
            self.ctx.begin_epoch();
        }
        self.add_in_epoch(sample);
    }

    /// Adds samples that all stay alive, unchanged, until the last one is added (the items of
    /// a list the caller holds), so a key identity met in one sample still names the same key
    /// in the next.
    pub fn add_all<'a, S: Source<'a>>(&mut self, samples: impl IntoIterator<Item = S>) {
        self.ctx.begin_epoch();
        for sample in samples {
            self.add_in_epoch(sample);
        }
    }

    /// Adds one sample (a JSON Lines line), told whether it has the keys of the sample added
    /// just before it, everywhere and in the same order.
    pub(crate) fn add_line<'a, S: Source<'a>>(&mut self, sample: S, same_keys: bool) {
        self.ctx.same_keys = same_keys;
        self.add(sample);
        self.ctx.same_keys = false;
    }

    /// Adds one sample that stands for `weight` equal samples: the same state as adding it
    /// `weight` times, since adding a sample again only raises counts.
    pub(crate) fn add_weighted<'a, S: Source<'a>>(&mut self, sample: S, weight: u64) {
        self.ctx.weight = weight;
        self.add(sample);
        self.ctx.weight = 1;
    }

    fn add_in_epoch<'a, S: Source<'a>>(&mut self, sample: S) {
        self.ctx.begin_sample();
        self.root.add(&mut self.ctx, sample, false);
        self.samples += self.ctx.weight;
    }

    /// Folds `other` into this accumulator.
    pub fn merge(&mut self, other: &Accumulator) -> Result<(), OptionsMismatch> {
        if other.ctx.opts != self.ctx.opts {
            return Err(OptionsMismatch);
        }
        Merger::new(&mut self.ctx, &other.ctx).slot(&mut self.root, &other.root);
        self.samples += other.samples;
        Ok(())
    }

    /// The schema of every sample so far.
    pub fn schema(&self) -> Result<Json, SchemaTooLarge> {
        let render = Render::new(&self.ctx);
        let schema = render.slot(&self.root);
        if render.exceeded() {
            Err(SchemaTooLarge)
        } else {
            Ok(schema)
        }
    }

    pub(crate) fn parts(&self) -> (&Ctx, &Slot) {
        (&self.ctx, &self.root)
    }

    pub(crate) fn from_parts(ctx: Ctx, root: Slot, samples: u64) -> Accumulator {
        Accumulator { ctx, root, samples }
    }
}

/// The schema of one value (`valueToSchema`): no enums, formats on every string when asked.
/// In merging mode, the schema of that one sample (formats where samples get them).
pub fn value_to_schema<'a, S: Source<'a>>(value: S, opts: Options) -> Result<Json, SchemaTooLarge> {
    if opts.merge {
        let mut acc = Accumulator::new(Options {
            enums: false,
            ..opts
        });
        acc.add(value);
        return acc.schema();
    }
    let mut ctx = Ctx::new(opts);
    let term = Pure::new(opts.format).term(&mut ctx, value, opts.max_depth);
    let render = Render::new(&ctx);
    let schema = render.term(term);
    if render.exceeded() {
        Err(SchemaTooLarge)
    } else {
        Ok(schema)
    }
}
