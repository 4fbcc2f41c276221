//! Multi-core JSON Lines inference over a byte slice or a stream, in bounded memory.
//!
//! Input is cut into chunks of whole lines. Worker threads each fill their own accumulator and
//! the results are merged at the end (merging is order-free). Streams are read by the calling
//! thread into a small bounded queue of blocks, so memory stays flat however large the input.
//! The calling thread also calls `tick` about ten times a second with the bytes done so far; a
//! `false` answer cancels the work.

use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use super::builder::Accumulator;
use super::error::LineError;
use super::lines::{read_chunk, too_long, ErrorMode, Outcome, Report};
use super::options::Options;
use super::skeleton::Skeletons;
use super::tape::Tape;

/// The largest block read from a stream.
pub const BLOCK: usize = 4 << 20;
/// Bytes of blocks a stream read holds at once (each worker's block, the queued ones and the one
/// being filled), so peak memory stays flat as threads are added: at 16 threads each block is
/// 1.7 MiB rather than 4 MiB, which would hold 132 MiB.
const IN_FLIGHT: usize = 32 << 20;
const MIN_BLOCK: usize = 1 << 20;
/// Blocks queued ahead of the workers; the reader fills a block far faster than one is parsed.
const QUEUED: usize = 2;
/// The longest line a stream may hold.
pub const MAX_LINE: usize = 256 << 20;
/// Inputs smaller than this are read by one thread (the calling one, for bytes).
const PARALLEL_MIN: usize = 1 << 20;
/// The most bytes of in-memory input a worker takes at a time ([`plan`]): small enough that the
/// workers finish close together, large enough that taking a piece costs nothing measurable.
const CHUNK: usize = 1 << 20;
const TICK: Duration = Duration::from_millis(100);
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How a JSON Lines read ended badly.
#[derive(Debug)]
pub enum LinesError {
    /// A bad line in raise mode (the first one in line order).
    Bad(LineError),
    /// The stream could not be read.
    Io(std::io::Error),
    /// `tick` asked to stop.
    Cancelled,
}

/// Settings of one read.
#[derive(Clone, Copy, Debug)]
pub struct Lines {
    pub options: Options,
    pub mode: ErrorMode,
    /// Worker threads; `0` means one per available core (one for inputs under 1 MiB).
    pub threads: usize,
    /// The longest line a stream may hold, in bytes.
    pub max_line: usize,
}

impl Lines {
    /// Raise on bad lines, all cores, lines up to [`MAX_LINE`].
    pub fn new(options: Options) -> Lines {
        Lines {
            options,
            mode: ErrorMode::Raise,
            threads: 0,
            max_line: MAX_LINE,
        }
    }

    fn workers(self, size_hint: usize) -> usize {
        if self.threads > 0 {
            return self.threads.min(256);
        }
        if size_hint < PARALLEL_MIN {
            return 1;
        }
        thread::available_parallelism().map_or(1, |n| n.get().min(256))
    }
}

/// Shared by the workers of one read.
struct Shared {
    /// Index of the earliest chunk that failed in raise mode (`usize::MAX` if none).
    stop: AtomicUsize,
    done: AtomicU64,
}

type Finished = (Accumulator, Vec<(usize, Outcome)>);

fn work<'c>(
    lines: Lines,
    shared: &Shared,
    mut next: impl FnMut() -> Option<(usize, Chunk<'c>)>,
    recycle: Option<&Sender<Vec<u8>>>,
) -> Finished {
    let mut acc = Accumulator::new(lines.options);
    let mut tape = Tape::default();
    let mut skeletons = Skeletons::new(lines.options);
    let mut outcomes = Vec::new();
    while let Some((index, chunk)) = next() {
        if index > shared.stop.load(Ordering::Relaxed) {
            continue;
        }
        let outcome = match &chunk {
            Chunk::Borrowed(bytes) => {
                read_chunk(&mut acc, &mut tape, &mut skeletons, bytes, lines.mode)
            }
            Chunk::Owned(bytes) => {
                read_chunk(&mut acc, &mut tape, &mut skeletons, bytes, lines.mode)
            }
            Chunk::TooLong => too_long(),
        };
        if let Chunk::Owned(bytes) = chunk {
            shared.done.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            if let Some(back) = recycle {
                let _ = back.send(bytes);
            }
        } else if let Chunk::Borrowed(bytes) = chunk {
            shared.done.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        }
        if outcome.failed {
            shared.stop.fetch_min(index, Ordering::Relaxed);
        }
        outcomes.push((index, outcome));
    }
    skeletons.flush(&mut acc);
    (acc, outcomes)
}

enum Chunk<'c> {
    Borrowed(&'c [u8]),
    Owned(Vec<u8>),
    TooLong,
}

/// Waits for `count` workers, ticking meanwhile, then merges what they built.
fn gather(
    lines: Lines,
    shared: &Shared,
    results: &Receiver<Finished>,
    count: usize,
    tick: &mut dyn FnMut(u64) -> bool,
    mut cancelled: bool,
) -> Result<(Accumulator, Report), LinesError> {
    let mut acc: Option<Accumulator> = None;
    let mut outcomes = Vec::new();
    let mut received = 0;
    while received < count {
        match results.recv_timeout(TICK) {
            Ok((part, done)) => {
                received += 1;
                outcomes.extend(done);
                match &mut acc {
                    _ if cancelled => {}
                    Some(acc) => {
                        let _ = acc.merge(&part);
                    }
                    None => acc = Some(part),
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if !cancelled && !tick(shared.done.load(Ordering::Relaxed)) {
                    cancelled = true;
                    shared.stop.store(0, Ordering::Relaxed);
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if cancelled || received < count {
        return Err(LinesError::Cancelled);
    }
    if !tick(shared.done.load(Ordering::Relaxed)) {
        return Err(LinesError::Cancelled);
    }
    outcomes.sort_by_key(|(index, _)| *index);
    let stop = shared.stop.load(Ordering::Relaxed);
    if stop != usize::MAX {
        let upto: Vec<Outcome> = outcomes
            .into_iter()
            .filter(|(index, _)| *index <= stop)
            .map(|(_, o)| o)
            .collect();
        let report = Report::from_outcomes(&upto);
        let first = report.errors.first().copied();
        return Err(first.map_or(LinesError::Cancelled, LinesError::Bad));
    }
    let list: Vec<Outcome> = outcomes.into_iter().map(|(_, o)| o).collect();
    let acc = acc.unwrap_or_else(|| Accumulator::new(lines.options));
    Ok((acc, Report::from_outcomes(&list)))
}

/// Where the pieces that workers take from `len` bytes nominally end: `most` bytes at a time at
/// first, then less as the input runs out (a quarter of each worker's share of what is left,
/// down to `most / 16`), so that the workers finish close together. The worker that takes a
/// piece moves its ends to line boundaries ([`piece`] in memory, [`Pieces::read`] in a file).
fn plan(len: usize, workers: usize, most: usize) -> Vec<usize> {
    let most = most.max(1);
    let least = (most / 16).max(1);
    let mut ends = Vec::with_capacity(len / most + workers * 12);
    let mut at = 0;
    while at < len {
        at += ((len - at) / (workers * 4))
            .clamp(least, most)
            .min(len - at);
        ends.push(at);
    }
    if ends.is_empty() {
        ends.push(len);
    }
    ends
}

/// The end of the line byte `at` falls in (just past its newline), or of `data`.
fn line_end(data: &[u8], at: usize) -> usize {
    match data.get(at..) {
        Some(rest) => memchr::memchr(b'\n', rest).map_or(data.len(), |p| at + p + 1),
        None => data.len(),
    }
}

/// Piece `index` of `data` as [`plan`]ned in `ends`: whole lines, empty where one long line
/// spans more than the piece.
fn piece<'d>(data: &'d [u8], ends: &[usize], index: usize) -> Option<&'d [u8]> {
    let end = line_end(data, *ends.get(index)?);
    let start = index.checked_sub(1).map_or(0, |i| line_end(data, ends[i]));
    Some(&data[start..end])
}

/// Infers the schema of in-memory JSON Lines.
pub fn read_bytes(
    lines: Lines,
    data: &[u8],
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    read_bytes_in(lines, data, CHUNK, tick)
}

/// [`read_bytes`] with the workers taking at most about `most` bytes at a time.
fn read_bytes_in(
    lines: Lines,
    data: &[u8],
    most: usize,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    let data = data.strip_prefix(BOM).unwrap_or(data);
    let workers = lines.workers(data.len());
    if workers == 1 && data.len() < PARALLEL_MIN {
        return read_small(lines, data, tick);
    }
    let ends = if workers == 1 {
        vec![data.len()]
    } else {
        plan(data.len(), workers, most)
    };
    let shared = Shared {
        stop: AtomicUsize::new(usize::MAX),
        done: AtomicU64::new(0),
    };
    let cursor = AtomicUsize::new(0);
    let (send, results) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let (shared, cursor, ends) = (&shared, &cursor, &ends);
            scope.spawn(move || {
                let next = || {
                    let index = cursor.fetch_add(1, Ordering::Relaxed);
                    piece(data, ends, index).map(|c| (index, Chunk::Borrowed(c)))
                };
                let _ = send.send(work(lines, shared, next, None));
            });
        }
        drop(send);
        gather(lines, &shared, &results, workers, tick, false)
    })
}

/// A small input on the calling thread: no threads to start for a few lines.
fn read_small(
    lines: Lines,
    data: &[u8],
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    let mut acc = Accumulator::new(lines.options);
    let mut skeletons = Skeletons::new(lines.options);
    let outcome = read_chunk(
        &mut acc,
        &mut Tape::default(),
        &mut skeletons,
        data,
        lines.mode,
    );
    skeletons.flush(&mut acc);
    if !tick(data.len() as u64) {
        return Err(LinesError::Cancelled);
    }
    let report = Report::from_outcomes(std::slice::from_ref(&outcome));
    match report.errors.first() {
        Some(&error) if outcome.failed => Err(LinesError::Bad(error)),
        _ => Ok((acc, report)),
    }
}

/// Infers the schema of a JSON Lines stream, reading it in bounded blocks.
pub fn read_stream<R: Read>(
    lines: Lines,
    mut reader: R,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    let workers = lines.workers(usize::MAX);
    let shared = Shared {
        stop: AtomicUsize::new(usize::MAX),
        done: AtomicU64::new(0),
    };
    let queued = workers.min(QUEUED);
    let block = (IN_FLIGHT / (workers + queued + 1)).clamp(MIN_BLOCK, BLOCK);
    let (blocks, queue) = mpsc::sync_channel::<(usize, Chunk<'static>)>(queued);
    let queue = Mutex::new(queue);
    let (recycle, spare) = mpsc::channel::<Vec<u8>>();
    let (send, results) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..workers {
            let (send, recycle) = (send.clone(), recycle.clone());
            let (shared, queue) = (&shared, &queue);
            scope.spawn(move || {
                let next = || queue.lock().ok()?.recv().ok();
                let _ = send.send(work(lines, shared, next, Some(&recycle)));
            });
        }
        drop(send);
        drop(recycle);
        let fed = feed(
            &mut reader,
            (lines.max_line, block),
            &blocks,
            &spare,
            &shared,
            tick,
        );
        drop(blocks);
        match fed {
            Ok(cancelled) => gather(lines, &shared, &results, workers, tick, cancelled),
            Err(error) => {
                shared.stop.store(0, Ordering::Relaxed);
                let _ = gather(lines, &shared, &results, workers, &mut |_| true, true);
                Err(LinesError::Io(error))
            }
        }
    })
}

/// Reads blocks of whole lines into the queue; returns whether `tick` cancelled.
fn feed<R: Read>(
    reader: &mut R,
    (max_line, size): (usize, usize),
    blocks: &mpsc::SyncSender<(usize, Chunk<'static>)>,
    spare: &Receiver<Vec<u8>>,
    shared: &Shared,
    tick: &mut dyn FnMut(u64) -> bool,
) -> std::io::Result<bool> {
    let mut carry: Vec<u8> = Vec::new();
    let mut index = 0;
    let mut last_tick = Instant::now();
    let mut first = true;
    let mut skipping = false;
    loop {
        if shared.stop.load(Ordering::Relaxed) != usize::MAX {
            return Ok(false);
        }
        if last_tick.elapsed() >= TICK {
            last_tick = Instant::now();
            if !tick(shared.done.load(Ordering::Relaxed)) {
                shared.stop.store(0, Ordering::Relaxed);
                return Ok(true);
            }
        }
        // Recycled blocks keep their initialised bytes, so nothing is zeroed twice.
        let mut block = spare.try_recv().unwrap_or_else(|_| vec![0u8; size]);
        let kept = carry.len();
        if block.len() < kept {
            block.resize(kept, 0);
        }
        block[..kept].copy_from_slice(&carry);
        carry.clear();
        let mut filled = kept;
        let mut limit = size.max(kept + size / 2);
        let eof = loop {
            let before = limit;
            filled = fill(reader, &mut block, filled, limit)?;
            if filled < before {
                break true;
            }
            if skipping || memchr::memrchr(b'\n', &block[..filled]).is_some() {
                break false;
            }
            if filled >= max_line {
                skipping = true;
                break false;
            }
            limit = (limit * 2).min(max_line.max(size));
        };
        block.truncate(filled);
        if first {
            first = false;
            if block.starts_with(b"\xEF\xBB\xBF") {
                block.drain(..3);
            }
        }
        if skipping {
            match memchr::memchr(b'\n', &block) {
                Some(p) => {
                    carry.extend_from_slice(&block[p + 1..]);
                    skipping = false;
                    if send(blocks, index, Chunk::TooLong) {
                        return Ok(false);
                    }
                    index += 1;
                }
                None if eof => {
                    let _ = send(blocks, index, Chunk::TooLong);
                    return Ok(false);
                }
                None => {}
            }
            continue;
        }
        if !eof {
            if let Some(p) = memchr::memrchr(b'\n', &block) {
                carry.extend_from_slice(&block[p + 1..]);
                block.truncate(p + 1);
            }
        }
        if !block.is_empty() && send(blocks, index, Chunk::Owned(block)) {
            return Ok(false);
        }
        index += 1;
        if eof {
            return Ok(false);
        }
    }
}

/// Queues a chunk; returns `true` when the workers are gone.
fn send(
    blocks: &mpsc::SyncSender<(usize, Chunk<'static>)>,
    index: usize,
    chunk: Chunk<'static>,
) -> bool {
    blocks.send((index, chunk)).is_err()
}

/// Reads into `block[filled..limit]` until it is full or the stream ends; returns the new
/// filled length.
fn fill<R: Read>(
    reader: &mut R,
    block: &mut Vec<u8>,
    mut filled: usize,
    limit: usize,
) -> std::io::Result<usize> {
    if block.len() < limit {
        block.resize(limit, 0);
    }
    while filled < limit {
        match reader.read(&mut block[filled..limit]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Infers the schema of a JSON Lines file. A regular file is read by the workers themselves,
/// each at its own offsets, so the copy out of the page cache runs in parallel and lands in the
/// cache of the core that parses it; anything else (a pipe, a device) is read as a stream.
pub fn read_file(
    lines: Lines,
    file: std::fs::File,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    #[cfg(unix)]
    if let Ok(meta) = file.metadata() {
        if meta.is_file() {
            return read_regular(lines, &file, meta.len(), tick);
        }
    }
    read_stream(lines, file, tick)
}

#[cfg(unix)]
fn read_regular(
    lines: Lines,
    file: &std::fs::File,
    len: u64,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let workers = lines.workers(len);
    let size = (IN_FLIGHT / (workers + 1)).clamp(MIN_BLOCK, BLOCK);
    read_regular_in(lines, file, len, size, tick)
}

/// [`read_regular`] with pieces of at most `size` bytes.
#[cfg(unix)]
fn read_regular_in(
    lines: Lines,
    file: &std::fs::File,
    len: usize,
    size: usize,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Accumulator, Report), LinesError> {
    let workers = lines.workers(len);
    let mut head = [0u8; 3];
    let base = match read_at(file, &mut head, 0) {
        Ok(3) if head == BOM[..] => 3,
        Ok(_) => 0,
        Err(error) => return Err(LinesError::Io(error)),
    };
    let pieces = Pieces {
        file,
        base,
        len,
        size,
        ends: plan(len.saturating_sub(base), workers, size),
        max_line: lines.max_line,
    };
    let shared = Shared {
        stop: AtomicUsize::new(usize::MAX),
        done: AtomicU64::new(0),
    };
    let cursor = AtomicUsize::new(0);
    let failure: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let (send, results) = mpsc::channel();
    let outcome = thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let (shared, cursor, pieces, failure) = (&shared, &cursor, &pieces, &failure);
            scope.spawn(move || {
                let (back, spare) = mpsc::channel::<Vec<u8>>();
                let mut pending = None;
                let next = || {
                    if let Some(index) = pending.take() {
                        return Some((index, Chunk::TooLong));
                    }
                    let index = cursor.fetch_add(1, Ordering::Relaxed);
                    if index >= pieces.ends.len() || 2 * index > shared.stop.load(Ordering::Relaxed)
                    {
                        return None;
                    }
                    let mut buf = spare
                        .try_recv()
                        .unwrap_or_else(|_| vec![0u8; pieces.size + 2 * STEP]);
                    match pieces.read(index, &mut buf) {
                        Ok(long) => {
                            if long {
                                pending = Some(2 * index + 1);
                            }
                            Some((2 * index, Chunk::Owned(buf)))
                        }
                        Err(error) => {
                            if let Ok(mut slot) = failure.lock() {
                                slot.get_or_insert(error);
                            }
                            shared.stop.store(0, Ordering::Relaxed);
                            None
                        }
                    }
                };
                let _ = send.send(work(lines, shared, next, Some(&back)));
            });
        }
        drop(send);
        gather(lines, &shared, &results, workers, tick, false)
    });
    match failure.into_inner().ok().flatten() {
        Some(error) => Err(LinesError::Io(error)),
        None => outcome,
    }
}

/// Bytes read at a time past a piece's end, to finish its last line. A worker's buffer starts
/// this much larger than a piece, twice, so finishing a line does not double it, and zeroed by
/// the allocator (fresh pages) rather than by a fill.
#[cfg(unix)]
const STEP: usize = 16 << 10;

/// A regular file cut into pieces of at most `size` bytes, as [`plan`]ned in `ends` (offsets
/// from `base`). Piece `i` holds the lines that start in `[base + ends[i-1], base + ends[i])`,
/// each to its end, so the pieces hold every line once.
#[cfg(unix)]
struct Pieces<'f> {
    file: &'f std::fs::File,
    base: usize,
    len: usize,
    size: usize,
    ends: Vec<usize>,
    max_line: usize,
}

#[cfg(unix)]
impl Pieces<'_> {
    /// Reads piece `index`'s lines into `buf`; `true` when its last line is longer than
    /// `max_line` (then `buf` holds the lines before it). `buf` keeps its length from piece to
    /// piece, so its bytes are zeroed once rather than before every read.
    fn read(&self, index: usize, buf: &mut Vec<u8>) -> std::io::Result<bool> {
        let from = self.base + index.checked_sub(1).map_or(0, |i| self.ends[i]);
        let last = index + 1 == self.ends.len();
        let to = if last {
            usize::MAX
        } else {
            self.base + self.ends[index]
        };
        let start = if index == 0 {
            from
        } else {
            match self.newline(from - 1, to.min(self.len).max(from))? {
                Some(at) if at + 1 < to => at + 1,
                _ => {
                    buf.clear();
                    return Ok(false);
                }
            }
        };
        let nominal = if last { self.len.max(start) } else { to };
        let mut filled = self.append(buf, 0, start, nominal - start)?;
        let mut long = false;
        if last || (filled == nominal - start && buf[..filled].last() != Some(&b'\n')) {
            // The last piece reads on to the end, in case the file grew since it was measured.
            let mut at = start + filled;
            loop {
                let got = self.append(buf, filled, at, STEP)?;
                if got == 0 {
                    break;
                }
                if !last {
                    if let Some(p) = memchr::memchr(b'\n', &buf[filled..filled + got]) {
                        filled += p + 1;
                        break;
                    }
                }
                filled += got;
                at += got;
                if !last && filled > self.max_line + (nominal - start) {
                    let kept = nominal - start;
                    filled = memchr::memrchr(b'\n', &buf[..kept]).map_or(0, |p| p + 1);
                    long = true;
                    break;
                }
            }
        }
        buf.truncate(filled);
        Ok(long)
    }

    /// The first newline in `[from, to)`, read in small steps.
    fn newline(&self, mut from: usize, to: usize) -> std::io::Result<Option<usize>> {
        let mut step = [0u8; 4096];
        while from < to {
            let want = step.len().min(to - from);
            let got = read_at(self.file, &mut step[..want], from)?;
            if got == 0 {
                return Ok(None);
            }
            if let Some(p) = memchr::memchr(b'\n', &step[..got]) {
                return Ok(Some(from + p));
            }
            from += got;
        }
        Ok(None)
    }

    /// Reads up to `count` bytes at `at` into `buf[filled..]`; returns how many (fewer only at
    /// the end of the file).
    fn append(
        &self,
        buf: &mut Vec<u8>,
        filled: usize,
        at: usize,
        count: usize,
    ) -> std::io::Result<usize> {
        if buf.len() < filled + count {
            buf.resize(filled + count, 0);
        }
        let mut got = 0;
        while got < count {
            match read_at(self.file, &mut buf[filled + got..filled + count], at + got)? {
                0 => break,
                n => got += n,
            }
        }
        Ok(got)
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: usize) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    loop {
        match file.read_at(buf, at as u64) {
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::Options;

    fn lines(threads: usize, mode: ErrorMode) -> Lines {
        Lines {
            threads,
            mode,
            ..Lines::new(Options::default())
        }
    }

    fn answer(got: Result<(Accumulator, Report), LinesError>) -> String {
        match got {
            Ok((acc, report)) => format!(
                "{} {} {} {:?}",
                acc.schema().unwrap().to_text(),
                report.lines,
                report.samples,
                report.errors.iter().map(|e| e.line).collect::<Vec<_>>()
            ),
            Err(LinesError::Bad(error)) => format!("{error:?}"),
            Err(other) => panic!("{other:?}"),
        }
    }

    #[test]
    fn small_pieces_give_what_one_thread_gives() {
        let mut data = Vec::new();
        for i in 0..3000 {
            let line = match i % 11 {
                _ if i == 1777 || i == 2901 => "{\"a\": tru}".to_owned(),
                0 => format!("{{\"a\": {i}, \"b\": [\"x{i}\", {{\"c\": null}}]}}"),
                3 => format!("{{\"a\": \"2024-01-{:02}\"}}", i % 28 + 1),
                7 => "  ".to_owned(),
                _ => format!("{{\"a\": {i}.5, \"d\": {{\"e\": {}}}}}", i % 2 == 0),
            };
            data.extend_from_slice(line.as_bytes());
            data.push(b'\n');
        }
        for mode in [ErrorMode::Raise, ErrorMode::Skip] {
            let want = answer(read_bytes(lines(1, mode), &data, &mut |_| true));
            for (threads, most) in [(2, 1), (2, 64), (3, 700), (5, 4096), (16, 1)] {
                let got = answer(read_bytes_in(
                    lines(threads, mode),
                    &data,
                    most,
                    &mut |_| true,
                ));
                assert_eq!(got, want, "{threads} threads, pieces of {most}, {mode:?}");
            }
        }
    }

    #[test]
    fn pieces_cover_the_input_in_whole_lines() {
        let data: Vec<u8> = (0..5000u32)
            .flat_map(|i| {
                let mut line = vec![b'x'; (i as usize * 7919) % 300];
                line.push(b'\n');
                line
            })
            .chain(*b"last line without a newline")
            .collect();
        for (workers, most) in [
            (1, CHUNK),
            (1, 4096),
            (2, 1),
            (2, 4096),
            (3, 700),
            (16, 65536),
        ] {
            let ends = plan(data.len(), workers, most);
            assert_eq!(ends.last(), Some(&data.len()));
            let starts = std::iter::once(0).chain(ends.iter().copied());
            assert!(
                starts.zip(&ends).all(|(s, &e)| s < e && e - s <= most),
                "bounded pieces"
            );
            let sizes: Vec<usize> = ends
                .iter()
                .scan(0, |at, &e| Some(e - std::mem::replace(at, e)))
                .collect();
            if workers > 1 && sizes.len() > 2 {
                assert!(
                    sizes[sizes.len() - 2] < sizes[0].max(2),
                    "the last pieces are smaller"
                );
            }
            let pieces: Vec<&[u8]> = (0..).map_while(|i| piece(&data, &ends, i)).collect();
            assert_eq!(pieces.len(), ends.len());
            assert_eq!(pieces.concat(), data, "{workers} workers, pieces of {most}");
            let mut at = 0;
            for p in pieces {
                at += p.len();
                assert!(p.is_empty() || p.ends_with(b"\n") || at == data.len());
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn small_file_pieces_give_what_one_thread_gives() {
        let mut data = b"\xEF\xBB\xBF".to_vec();
        for i in 0..2000 {
            let line = match i % 7 {
                _ if i == 1500 => "{\"a\": nul}".to_owned(),
                0 => format!("{{\"a\": {i}, \"b\": [\"{}\"]}}", "x".repeat(i % 300)),
                4 => String::new(),
                _ => format!("{{\"a\": {i}.5, \"c\": {{\"d\": {}}}}}", i % 2 == 0),
            };
            data.extend_from_slice(line.as_bytes());
            data.push(b'\n');
        }
        data.extend_from_slice(b"{\"last\": true}");
        let path = std::env::temp_dir().join(format!("orkestrel-pieces-{}", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        for mode in [ErrorMode::Raise, ErrorMode::Skip] {
            let want = answer(read_bytes(lines(1, mode), &data, &mut |_| true));
            for (threads, size) in [(1, 1), (2, 1), (2, 64), (3, 700), (5, 4096), (16, 97)] {
                let got = answer(read_regular_in(
                    lines(threads, mode),
                    &file,
                    data.len(),
                    size,
                    &mut |_| true,
                ));
                assert_eq!(got, want, "{threads} threads, pieces of {size}, {mode:?}");
            }
        }
        drop(file);
        std::fs::remove_file(&path).unwrap();
    }
}
