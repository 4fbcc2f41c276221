//! Times JSON Lines inference on one thread: `cargo run --release --example lines -- FILE [ROUNDS] [THREADS] [merge]`.
use std::io::Write;
use std::time::Instant;

use orkestrel_core::infer::{read_bytes, Lines, Options};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a JSON Lines file");
    let rounds: usize = args.next().map_or(5, |r| r.parse().expect("rounds"));
    let threads: usize = args.next().map_or(1, |r| r.parse().expect("threads"));
    let data = std::fs::read(path).expect("readable file");
    let merge = args.next().is_some_and(|m| m == "merge");
    let mut lines = Lines::new(Options {
        merge,
        ..Options::default()
    });
    lines.threads = threads;
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        let (acc, report) = read_bytes(lines, &data, &mut |_| true).expect("valid lines");
        let seconds = start.elapsed().as_secs_f64();
        best = best.min(seconds);
        assert!(report.samples > 0 && acc.samples() == report.samples);
    }
    let rate = data.len() as f64 / best / 1e6;
    writeln!(std::io::stdout(), "{rate:.0} MB/s (best of {rounds})").expect("stdout");
}
