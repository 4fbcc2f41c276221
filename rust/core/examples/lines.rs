//! Times JSON Lines inference:
//! `cargo run --release --example lines -- FILE [ROUNDS] [THREADS] [merge] [stream|file]`.
//!
//! `stream` reads the file through `read_stream`, `file` through `read_file` (as a path given to
//! `infer_json_lines` is read), instead of from memory. Besides the rate it prints the
//! allocations made, their bytes and the peak of live heap bytes over the rounds, counted by a
//! wrapping global allocator.
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use orkestrel_core::infer::{read_bytes, read_file, read_stream, Lines, Options};

struct Counting;

static CALLS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    CALLS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(size, Ordering::Relaxed);
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is passed on to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        grew(new_size);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a JSON Lines file");
    let rounds: usize = args.next().map_or(5, |r| r.parse().expect("rounds"));
    let threads: usize = args.next().map_or(1, |r| r.parse().expect("threads"));
    let flags: Vec<String> = args.collect();
    let merge = flags.iter().any(|f| f == "merge");
    let stream = flags.iter().any(|f| f == "stream");
    let whole = flags.iter().any(|f| f == "file");
    let data = if stream || whole {
        Vec::new()
    } else {
        std::fs::read(&path).expect("readable file")
    };
    let size = std::fs::metadata(&path).expect("readable file").len() as f64;
    let mut lines = Lines::new(Options {
        merge,
        ..Options::default()
    });
    lines.threads = threads;
    let mut best = f64::MAX;
    let (calls, bytes) = (CALLS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    for _ in 0..rounds {
        let start = Instant::now();
        let (acc, report) = if whole {
            let file = std::fs::File::open(&path).expect("readable file");
            read_file(lines, file, &mut |_| true)
        } else if stream {
            let file = std::fs::File::open(&path).expect("readable file");
            read_stream(lines, file, &mut |_| true)
        } else {
            read_bytes(lines, &data, &mut |_| true)
        }
        .expect("valid lines");
        let schema = acc.schema().expect("a schema");
        let seconds = start.elapsed().as_secs_f64();
        best = best.min(seconds);
        assert!(report.samples > 0 && acc.samples() == report.samples);
        drop(schema);
    }
    let rate = size / best / 1e6;
    let mb = size * rounds as f64 / 1e6;
    let calls = (CALLS.load(Ordering::Relaxed) - calls) as f64 / mb;
    let bytes = (BYTES.load(Ordering::Relaxed) - bytes) as f64 / mb;
    let peak = (PEAK.load(Ordering::Relaxed) - base) as f64 / 1e6;
    writeln!(
        std::io::stdout(),
        "{rate:.0} MB/s (best of {rounds}); {calls:.1} allocations and {bytes:.0} bytes allocated per MB; peak live heap {peak:.1} MB"
    )
    .expect("stdout");
}
