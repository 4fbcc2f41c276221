//! JSON Lines: one sample per non-blank line, parsed straight into an accumulator.

use super::builder::Accumulator;
use super::error::{LineError, Reason};
use super::parsed::Parsed;
use super::skeleton::Skeletons;
use super::tape::Tape;

/// Bad lines kept for a report.
pub const ERROR_SAMPLE: usize = 10;

/// What to do with a line that is not JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMode {
    /// Stop at the first bad line.
    Raise,
    /// Count the bad line, remember the first few, and go on.
    Skip,
}

/// Counts for one chunk of lines; error lines are relative to the chunk's first line.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outcome {
    pub lines: u64,
    pub samples: u64,
    pub skipped: u64,
    pub errors: Vec<LineError>,
    /// Set when a bad line stopped the chunk (raise mode).
    pub failed: bool,
}

/// Parses every line of `chunk` into `acc`, but for the lines that repeat a skeleton, which
/// stay counted in `skeletons` until [`Skeletons::flush`]. `chunk` holds whole lines; the last
/// may lack `\n`.
pub(crate) fn read_chunk(
    acc: &mut Accumulator,
    tape: &mut Tape,
    skeletons: &mut Skeletons,
    chunk: &[u8],
    mode: ErrorMode,
) -> Outcome {
    let mut out = Outcome::default();
    let mut pos = 0;
    // Whether the last line was added: only then is the line before a line the one added last.
    let mut added = false;
    while pos < chunk.len() {
        let start = pos;
        out.lines += 1;
        while let Some(b' ' | b'\t' | b'\r') = chunk.get(pos) {
            pos += 1;
        }
        match chunk.get(pos) {
            None => break,
            Some(b'\n') => {
                pos += 1;
                continue;
            }
            Some(_) => {}
        }
        let line = &chunk[pos..];
        let parsed = tape.parse_line_any(line);
        match parsed {
            Ok(end) => {
                let line = &line[..end];
                let shaped = tape.shaped_kinds(line);
                // A line read by a shape with too many scalars to pack is added: the key-order
                // hints make it cheap.
                let checked = shaped.is_some() || !tape.read_by_shape();
                if checked && skeletons.repeats(&tape.toks, line, shaped) {
                    added = false;
                } else {
                    acc.add_line(Parsed::root(tape, line), added && tape.repeats_keys());
                    added = true;
                }
                out.samples += 1;
                pos += end + 1;
            }
            Err(error) => {
                let at = pos + error.offset.min(line.len());
                let bad = LineError {
                    line: out.lines,
                    column: (at - start) as u64 + 1,
                    reason: error.reason,
                };
                added = false;
                out.skipped += 1;
                if out.errors.len() < ERROR_SAMPLE {
                    out.errors.push(bad);
                }
                if mode == ErrorMode::Raise {
                    out.failed = true;
                    return out;
                }
                pos = memchr::memchr(b'\n', &chunk[at..]).map_or(chunk.len(), |p| at + p + 1);
            }
        }
    }
    out
}

/// An outcome for a line the reader could not even hold.
pub(crate) fn too_long() -> Outcome {
    Outcome {
        lines: 1,
        skipped: 1,
        errors: vec![LineError {
            line: 1,
            column: 1,
            reason: Reason::TooLong,
        }],
        failed: true,
        ..Outcome::default()
    }
}

/// What a JSON Lines read found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Lines read, blank ones included.
    pub lines: u64,
    /// Lines added as samples.
    pub samples: u64,
    /// Bad lines skipped.
    pub skipped: u64,
    /// The first bad lines, in line order.
    pub errors: Vec<LineError>,
}

impl Report {
    /// Combines per-chunk outcomes given in chunk order.
    pub(crate) fn from_outcomes(outcomes: &[Outcome]) -> Report {
        let mut report = Report::default();
        for outcome in outcomes {
            for error in &outcome.errors {
                if report.errors.len() < ERROR_SAMPLE {
                    report.errors.push(LineError {
                        line: error.line + report.lines,
                        ..*error
                    });
                }
            }
            report.lines += outcome.lines;
            report.samples += outcome.samples;
            report.skipped += outcome.skipped;
        }
        report
    }
}
