//! Laws of the accumulator: split-independence, serialisation round trips, and JSON Lines
//! reading (parallel, streamed, with bad lines), checked over the conformance samples in both
//! the reference's mode and the merging mode.

use std::io::Read;

use orkestrel_core::infer::{
    decode, encode, read_bytes, read_file, read_stream, Accumulator, ErrorMode, Json, Lines,
    LinesError, Options, Parsed, Reason, Report, Source, Tape,
};

const CASES: &str = include_str!("../../../tests/conformance/contract/cases.jsonl");

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every infer/loop case as (options, one JSON text per sample).
fn cases() -> Vec<(Options, Vec<String>)> {
    let mut tape = Tape::default();
    let mut out = Vec::new();
    for line in CASES.lines() {
        tape.parse(line.as_bytes()).unwrap();
        let request = Parsed::root(&tape, line.as_bytes());
        let op = request.get("op").and_then(|o| o.to_json(1));
        if !matches!(op, Some(Json::Str(ref s)) if &**s == b"infer" || &**s == b"loop") {
            continue;
        }
        let flag = |name: &str, default: bool| match request
            .get("options")
            .and_then(|o| o.get(name))
            .and_then(|v| v.to_json(1))
        {
            Some(Json::Bool(b)) => b,
            _ => default,
        };
        let opts = Options {
            format: flag("format", false),
            enums: flag("enum", false),
            closed: flag("closed", true),
            ..Options::default()
        };
        let samples = request.get("samples").unwrap();
        let texts: Vec<String> = samples
            .items()
            .map(|s| s.to_json(64).unwrap().to_text())
            .collect();
        // Every law holds in the merging mode too.
        out.push((
            Options {
                merge: true,
                ..opts
            },
            texts.clone(),
        ));
        out.push((opts, texts));
    }
    out
}

fn single(opts: Options, texts: &[String]) -> Accumulator {
    let mut acc = Accumulator::new(opts);
    let mut tape = Tape::default();
    for text in texts {
        tape.parse(text.as_bytes()).unwrap();
        acc.add(Parsed::root(&tape, text.as_bytes()));
    }
    acc
}

#[test]
fn any_split_merged_in_any_order_gives_the_single_pass_schema() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (opts, texts) in cases() {
        let want = single(opts, &texts).schema().unwrap();
        for _ in 0..4 {
            let parts = 1 + rng.below(4);
            let mut buckets: Vec<Vec<String>> = vec![Vec::new(); parts];
            for text in &texts {
                buckets[rng.below(parts)].push(text.clone());
            }
            let mut accs: Vec<Accumulator> = buckets.iter().map(|b| single(opts, b)).collect();
            // Half the time, ship each part through its serialised form first.
            if rng.below(2) == 0 {
                accs = accs.iter().map(|a| decode(&encode(a)).unwrap()).collect();
            }
            while accs.len() > 1 {
                let i = rng.below(accs.len());
                let a = accs.swap_remove(i);
                let j = rng.below(accs.len());
                accs[j].merge(&a).unwrap();
            }
            let got = accs[0].schema().unwrap();
            assert_eq!(got.to_text(), want.to_text(), "{texts:?}");
        }
    }
}

#[test]
fn serialised_state_round_trips_and_rejects_garbage() {
    let mut rng = Rng(7);
    for (opts, texts) in cases() {
        let acc = single(opts, &texts);
        let bytes = encode(&acc);
        let back = decode(&bytes).unwrap();
        assert_eq!(
            back.schema().unwrap().to_text(),
            acc.schema().unwrap().to_text()
        );
        assert_eq!(back.samples(), acc.samples());
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        let mut broken = bytes.clone();
        for _ in 0..3 {
            let at = 5 + rng.below(broken.len() - 5);
            broken[at] = rng.next() as u8;
        }
        // Either an error or some accumulator: never a panic.
        if let Ok(acc) = decode(&broken) {
            let _ = acc.schema();
        }
    }
    assert!(decode(b"").is_err());
    assert!(decode(b"OKIS\x02").is_err());
}

#[test]
fn options_must_match_to_merge() {
    let mut a = Accumulator::new(Options::default());
    let b = Accumulator::new(Options {
        enums: true,
        ..Options::default()
    });
    assert!(a.merge(&b).is_err());
}

/// A reader that hands out data in random small pieces.
struct Trickle<'d> {
    data: &'d [u8],
    rng: Rng,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (1 + self.rng.below(4096))
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn jsonl(texts: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for text in texts {
        out.extend_from_slice(text.as_bytes());
        out.push(b'\n');
    }
    out
}

#[test]
fn json_lines_give_the_same_schema_on_one_core_many_cores_and_a_stream() {
    let mut rng = Rng(99);
    for (opts, texts) in cases() {
        if texts.is_empty() {
            continue;
        }
        let many: Vec<String> = (0..40).flat_map(|_| texts.iter().cloned()).collect();
        let want = single(opts, &many).schema().unwrap().to_text();
        let data = jsonl(&many);
        for threads in [1, 3] {
            let lines = Lines {
                threads,
                ..Lines::new(opts)
            };
            let (acc, report) = read_bytes(lines, &data, &mut |_| true).unwrap();
            assert_eq!(acc.schema().unwrap().to_text(), want);
            assert_eq!(report.samples, many.len() as u64);
            let trickle = Trickle {
                data: &data,
                rng: Rng(rng.next() | 1),
            };
            let (acc, report) = read_stream(lines, trickle, &mut |_| true).unwrap();
            assert_eq!(acc.schema().unwrap().to_text(), want);
            assert_eq!(report.lines, many.len() as u64);
        }
    }
}

/// About `size` bytes of JSON Lines with blank and bad lines; the count of lines.
fn mixed_lines(size: usize) -> (Vec<u8>, u64) {
    let mut data = Vec::new();
    let mut i = 0u64;
    while data.len() < size {
        let line = match i % 5 {
            0 => format!("{{\"id\": {i}, \"tags\": [\"a\", \"b{}\"]}}\n", i % 13),
            1 => format!(
                "{{\"id\": {i}, \"at\": \"2024-01-0{}T00:00:00Z\"}}\n",
                1 + i % 9
            ),
            2 => "   \r\n".to_owned(),
            3 if i % 50_000 == 3 => "{\"id\": tru}\n".to_owned(),
            _ => format!(
                "{{\"id\": {}.5, \"pad\": \"{}\"}}\n",
                i,
                "x".repeat((i % 200) as usize)
            ),
        };
        data.extend_from_slice(line.as_bytes());
        i += 1;
    }
    (data, i)
}

/// A stream read by many threads is cut into smaller blocks (its bytes in flight are capped), so
/// lines cross many block edges: the schema and the report stay those of one thread.
#[test]
fn a_stream_read_by_many_threads_in_small_blocks_gives_the_same_schema_and_report() {
    let (data, count) = mixed_lines(5 << 20);
    let read = |threads| {
        let lines = Lines {
            threads,
            mode: ErrorMode::Skip,
            ..Lines::new(Options::default())
        };
        let (acc, report) = read_stream(lines, &data[..], &mut |_| true).unwrap();
        (acc.schema().unwrap().to_text(), report)
    };
    let want = read(1);
    assert!(want.1.skipped > 0 && want.1.lines == count);
    for threads in [2, 16, 40] {
        assert_eq!(read(threads), want, "{threads} threads");
    }
}

/// A regular file is read by the workers at their own offsets; pieces start and end at line
/// edges found in the file itself, a line longer than a piece leaves pieces with no line, and
/// a byte order mark is dropped only at the start. Every thread count gives the bytes' answer.
#[test]
fn a_file_read_by_the_workers_at_their_offsets_gives_the_schema_and_report_of_its_bytes() {
    let (mut data, _) = mixed_lines(3 << 20);
    data.extend_from_slice(format!("{{\"long\": \"{}\"}}\n", "y".repeat(5 << 20)).as_bytes());
    data.extend_from_slice(&mixed_lines(2 << 20).0);
    data.extend_from_slice(b"{\"id\": 1, \"end\": true}");
    let path =
        std::env::temp_dir().join(format!("orkestrel-file-law-{}.jsonl", std::process::id()));
    for bom in [false, true] {
        let mut bytes = if bom {
            b"\xEF\xBB\xBF".to_vec()
        } else {
            Vec::new()
        };
        bytes.extend_from_slice(&data);
        std::fs::write(&path, &bytes).unwrap();
        for mode in [ErrorMode::Skip, ErrorMode::Raise] {
            let lines = |threads| Lines {
                threads,
                mode,
                ..Lines::new(Options::default())
            };
            let answer = |got: Result<(Accumulator, Report), LinesError>| match got {
                Ok((acc, report)) => Ok((acc.schema().unwrap().to_text(), report)),
                Err(LinesError::Bad(error)) => Err(format!("{error:?}")),
                Err(other) => panic!("{other:?}"),
            };
            let want = answer(read_bytes(lines(1), &bytes, &mut |_| true));
            for threads in [1, 2, 16, 40] {
                let file = std::fs::File::open(&path).unwrap();
                let got = answer(read_file(lines(threads), file, &mut |_| true));
                assert_eq!(got, want, "{threads} threads, {mode:?}, bom {bom}");
            }
        }
    }
    std::fs::remove_file(&path).unwrap();
}

/// Where a file is not read at offsets (Windows, where `read_file` has no `read_regular`, and a
/// pipe everywhere) it is read through `read_stream` on the `File` itself: called so here, on
/// the same regular file and on a pipe carrying its bytes, it gives the offsets' answer.
#[test]
fn a_file_read_as_a_stream_or_through_a_pipe_gives_the_answer_of_its_offsets() {
    let (mut data, _) = mixed_lines(2 << 20);
    data.extend_from_slice(format!("{{\"long\": \"{}\"}}\n", "y".repeat(3 << 20)).as_bytes());
    data.extend_from_slice(b"{\"id\": 1, \"end\": true}");
    let path =
        std::env::temp_dir().join(format!("orkestrel-stream-law-{}.jsonl", std::process::id()));
    let answer = |got: Result<(Accumulator, Report), LinesError>| match got {
        Ok((acc, report)) => Ok((acc.schema().unwrap().to_text(), report)),
        Err(LinesError::Bad(error)) => Err(format!("{error:?}")),
        Err(other) => panic!("{other:?}"),
    };
    for bom in [false, true] {
        let mut bytes = if bom {
            b"\xEF\xBB\xBF".to_vec()
        } else {
            Vec::new()
        };
        bytes.extend_from_slice(&data);
        std::fs::write(&path, &bytes).unwrap();
        for mode in [ErrorMode::Skip, ErrorMode::Raise] {
            for threads in [1, 2, 16] {
                let lines = Lines {
                    threads,
                    mode,
                    ..Lines::new(Options::default())
                };
                let open = || std::fs::File::open(&path).unwrap();
                let want = answer(read_file(lines, open(), &mut |_| true));
                let streamed = answer(read_stream(lines, open(), &mut |_| true));
                assert_eq!(
                    streamed, want,
                    "stream, {threads} threads, {mode:?}, bom {bom}"
                );
                #[cfg(unix)]
                for through in ["read_file", "read_stream"] {
                    let piped = answer(piped(&path, |file| match through {
                        "read_file" => read_file(lines, file, &mut |_| true),
                        _ => read_stream(lines, file, &mut |_| true),
                    }));
                    assert_eq!(piped, want, "pipe {through}, {threads} threads, {mode:?}");
                }
            }
        }
    }
    std::fs::remove_file(&path).unwrap();
}

/// Runs `read` on the reading end of a pipe, as a `File`, while `cat` writes the file into it.
#[cfg(unix)]
fn piped<T>(path: &std::path::Path, read: impl FnOnce(std::fs::File) -> T) -> T {
    use std::os::fd::OwnedFd;
    use std::process::{Command, Stdio};
    let mut cat = Command::new("cat")
        .arg(path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let file = std::fs::File::from(OwnedFd::from(cat.stdout.take().unwrap()));
    assert!(!file.metadata().unwrap().is_file());
    let got = read(file);
    // A reader that stopped early (a bad line under `Raise`) leaves `cat` a broken pipe.
    cat.wait().unwrap();
    got
}

#[test]
fn bad_lines_are_reported_with_their_line_numbers() {
    let mut data = Vec::new();
    for i in 0..5000 {
        if i == 3210 || i == 4000 {
            data.extend_from_slice(b"{\"a\": tru}\n");
        } else if i % 7 == 0 {
            data.extend_from_slice(b"   \r\n");
        } else {
            data.extend_from_slice(format!("{{\"a\": {i}}}\n").as_bytes());
        }
    }
    for threads in [1, 2, 5] {
        let lines = Lines {
            threads,
            ..Lines::new(Options::default())
        };
        match read_bytes(lines, &data, &mut |_| true) {
            Err(LinesError::Bad(error)) => {
                assert_eq!(
                    (error.line, error.column, error.reason),
                    (3211, 7, Reason::Unexpected)
                );
            }
            other => panic!("{other:?}"),
        }
        let skip = Lines {
            mode: ErrorMode::Skip,
            ..lines
        };
        let (acc, report) = read_bytes(skip, &data, &mut |_| true).unwrap();
        assert_eq!(report.skipped, 2);
        assert_eq!(report.lines, 5000);
        assert_eq!(
            report.errors.iter().map(|e| e.line).collect::<Vec<_>>(),
            [3211, 4001]
        );
        assert_eq!(
            acc.schema().unwrap().to_text(),
            r#"{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}"#
        );
    }
}

#[test]
fn hostile_lines_give_typed_errors() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let big = format!("\"{}\"", "x".repeat(1 << 20));
    let bad: &[(&[u8], Reason)] = &[
        (b"{\"a\":\xff}", Reason::Unexpected),
        (b"\"\xc3\x28\"", Reason::Utf8),
        (b"{\"a\": 1", Reason::End),
        (b"\"ab\x00c\"", Reason::Control),
        (b"\x00", Reason::Unexpected),
        (b"[1,]", Reason::Unexpected),
        (b"01", Reason::Trailing),
        (b"\"\\x\"", Reason::Escape),
        (b"{1: 2}", Reason::Key),
        (b"NaN", Reason::Unexpected),
        (&deep.as_bytes()[..15_000], Reason::End),
    ];
    let mut tape = Tape::default();
    for (text, reason) in bad {
        let error = tape.parse(text).unwrap_err();
        assert_eq!(error.reason, *reason, "{:?}", String::from_utf8_lossy(text));
    }
    for good in [deep.as_bytes(), big.as_bytes()] {
        tape.parse(good).unwrap();
        let mut acc = Accumulator::new(Options::default());
        acc.add(Parsed::root(&tape, good));
        let _ = acc.schema().unwrap();
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(12345);
    let alphabet = b"{}[]\":,\\ \n\t0123456789.eE+-truefalsn\x00\xff\xc3\xa9ab";
    for _ in 0..2000 {
        let len = rng.below(200);
        let data: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for threads in [1, 2] {
            let lines = Lines {
                mode: ErrorMode::Skip,
                threads,
                ..Lines::new(Options::default())
            };
            let (acc, report) = read_bytes(lines, &data, &mut |_| true).unwrap();
            assert!(report.samples + report.skipped <= report.lines);
            let _ = acc.schema().unwrap();
        }
    }
}

#[test]
fn a_line_longer_than_the_limit_is_a_typed_error() {
    struct Endless(u64);
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Ok(0);
            }
            let n = buf.len().min(self.0 as usize);
            buf[..n].fill(b' ');
            self.0 -= n as u64;
            Ok(n)
        }
    }
    let lines = Lines {
        threads: 1,
        max_line: 1 << 23,
        ..Lines::new(Options::default())
    };
    let source = Endless((1 << 23) + 10).chain(&b"\n1\n"[..]);
    match read_stream(lines, source, &mut |_| true) {
        Err(LinesError::Bad(error)) => assert_eq!((error.line, error.reason), (1, Reason::TooLong)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cancelling_stops_the_read() {
    let data: Vec<u8> = (0..200_000)
        .flat_map(|i| format!("{{\"k{}\": [1, 2.5, \"x\"]}}\n", i % 300).into_bytes())
        .collect();
    let lines = Lines {
        threads: 2,
        ..Lines::new(Options::default())
    };
    let stream = Trickle {
        data: &data,
        rng: Rng(5),
    };
    match read_stream(lines, stream, &mut |_| false) {
        Err(LinesError::Cancelled) => {}
        Ok(_) => {}
        Err(other) => panic!("{other:?}"),
    }
}

/// Records whose keys mostly repeat the previous record's, in the same order (the case a slot
/// recognises without looking keys up), mixed with every way to break the repeat: another
/// order, a missing or extra key, a duplicate key, the same key escaped, keys that share their
/// first 16 bytes, and more keys than the breadth limit keeps.
fn repeating_records(rng: &mut Rng, count: usize) -> Vec<String> {
    let mut keys: Vec<usize> = vec![0, 2, 5, 6];
    let mut out = Vec::new();
    for _ in 0..count {
        match rng.below(12) {
            0 => {
                let (i, j) = (rng.below(keys.len()), rng.below(keys.len()));
                keys.swap(i, j);
            }
            1 if keys.len() > 1 => {
                let i = rng.below(keys.len());
                keys.remove(i);
            }
            2 => {
                let (i, k) = (rng.below(keys.len() + 1), rng.below(POOL.len()));
                keys.insert(i, k);
            }
            3 => {
                keys = (0..1 + rng.below(6))
                    .map(|_| rng.below(POOL.len()))
                    .collect()
            }
            4 | 5 => {
                let (i, k) = (rng.below(keys.len()), rng.below(POOL.len()));
                keys[i] = k;
            }
            _ => {}
        }
        out.push(record_text(rng, &POOL, &keys));
    }
    out
}

/// Keys for the repeat tests: escaped spellings of one key, keys sharing their first 16
/// bytes, and keys on both sides of 16 bytes.
const POOL: [&str; 11] = [
    r#""a""#,
    r#""\u0061""#,
    r#""b""#,
    r#""""#,
    r#""é""#,
    r#""identifier""#,
    r#""abcdefghijklmnopqrstu-1""#,
    r#""abcdefghijklmnopqrstu-2""#,
    r#""abcdefghijklmnop""#,
    r#""abcdefghijklmno\u0070""#,
    r#""zzz""#,
];

/// A record with the keys `keys` (indices into `pool`), in order.
fn record_text(rng: &mut Rng, pool: &[&str], keys: &[usize]) -> String {
    let mut text = String::from("{");
    for (i, &k) in keys.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(pool[k]);
        text.push(':');
        // Each key has its own two kinds of value, so a value counted under the wrong
        // key shows in the schema.
        text.push_str(match (k + rng.below(2)) % 8 {
            0 => "1",
            1 => "2.5",
            2 => r#""x""#,
            3 => "null",
            4 => "[true]",
            5 => r#"{"a": 1, "b": "y"}"#,
            6 => r#"{"b": 1, "a": "y", "c": null}"#,
            _ => r#"{"a": "z", "b": 3}"#,
        });
    }
    text.push('}');
    text
}

/// Records that alternate between a dozen key orders (more than a slot keeps aside), some of
/// them with duplicate keys, escaped spellings or long keys, and now and then a new order.
fn alternating_records(rng: &mut Rng, count: usize) -> Vec<String> {
    let mut shapes: Vec<Vec<usize>> = (0..12)
        .map(|_| {
            (0..1 + rng.below(6))
                .map(|_| rng.below(POOL.len()))
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for _ in 0..count {
        let which = match rng.below(8) {
            0 => rng.below(shapes.len()),
            _ => rng.below(3),
        };
        if rng.below(20) == 0 {
            let i = rng.below(shapes[which].len());
            shapes[which][i] = rng.below(POOL.len());
        }
        let keys = shapes[which].clone();
        out.push(record_text(rng, &POOL, &keys));
    }
    out
}

/// Records with one key order whose values switch between two kinds, nested records too: a
/// few value shapes repeat often, many now and then (more than a slot keeps recent terms
/// for). Some lines are not records, so the root lists each record shape it met.
fn value_shapes(rng: &mut Rng, count: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..count {
        let often = rng.below(4) != 0;
        let mut pick = |a: &'static str, b: &'static str| {
            if rng.below(if often { 8 } else { 2 }) == 0 {
                b
            } else {
                a
            }
        };
        let (x, y, z) = (pick("1", r#""s""#), pick("null", "true"), pick("2", "2.5"));
        let (b, c) = (pick(r#""t""#, "[1]"), pick("null", r#"{"x": 3}"#));
        out.push(match rng.below(10) {
            0 => "7".to_owned(),
            _ => format!(r#"{{"a": {{"x": {x}, "y": {y}, "z": {z}}}, "b": {b}, "c": {c}}}"#),
        });
    }
    out
}

/// Records of a few key orders with the same number of keys (so a slot tries more than one
/// shelved order), whose values are mostly containers (more than a record's first few), each
/// key with its own kinds of value.
fn container_records(rng: &mut Rng, count: usize) -> Vec<String> {
    const KEYS: [&str; 8] = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"];
    let orders: Vec<Vec<usize>> = (0..4)
        .map(|_| {
            let mut keys: Vec<usize> = (0..KEYS.len()).collect();
            for i in (1..keys.len()).rev() {
                keys.swap(i, rng.below(i + 1));
            }
            keys.truncate(6);
            keys
        })
        .collect();
    let mut out = Vec::new();
    for _ in 0..count {
        let keys = &orders[if rng.below(4) == 0 { rng.below(4) } else { 0 }];
        let mut text = String::from("{");
        for (i, &k) in keys.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            let value = match (k + rng.below(3)) % 6 {
                0 => "1".to_owned(),
                1 => format!(r#"{{"x": {}, "k{k}": [{}]}}"#, rng.below(2), k % 3),
                2 => format!(r#"[{{"y": "s"}}, {}]"#, ["null", "2.5", "{}"][rng.below(3)]),
                3 => format!(r#"{{"z": {{"w": {}}}}}"#, ["true", "\"t\""][rng.below(2)]),
                4 => "[]".to_owned(),
                _ => format!(r#"{{"k{k}": null}}"#),
            };
            text.push_str(&format!(r#""{}": {value}"#, KEYS[k]));
        }
        text.push('}');
        out.push(if rng.below(12) == 0 {
            "[1]".to_owned()
        } else {
            text
        });
    }
    out
}

#[test]
fn records_of_containers_in_orders_of_one_length_give_the_schema_of_records_taken_one_at_a_time() {
    one_at_a_time_over(0xC0_17A1, 80, 200, container_records);
}

#[test]
fn value_shapes_that_come_back_give_the_schema_of_records_taken_one_at_a_time() {
    one_at_a_time_over(0x5A9E, 80, 300, value_shapes);
}

#[test]
fn repeated_key_orders_give_the_schema_of_records_taken_one_at_a_time() {
    one_at_a_time_over(0x5EED, 60, 120, repeating_records);
}

#[test]
fn alternating_key_orders_give_the_schema_of_records_taken_one_at_a_time() {
    one_at_a_time_over(0xA17E, 80, 300, alternating_records);
}

/// [`same_as_one_at_a_time`] over `rounds` batches of 1 to `most` records from `records`.
fn one_at_a_time_over(
    seed: u64,
    rounds: usize,
    most: usize,
    records: fn(&mut Rng, usize) -> Vec<String>,
) {
    let mut rng = Rng(seed);
    for round in 0..rounds {
        let count = 1 + rng.below(most);
        let texts = records(&mut rng, count);
        same_as_one_at_a_time(round, &texts);
    }
}

/// Single-pass inference of `texts`, from samples and from JSON Lines, equals merging one
/// accumulator per record (where no slot ever meets a repeat).
fn same_as_one_at_a_time(round: usize, texts: &[String]) {
    let opts = Options {
        enums: round % 2 == 0,
        closed: round % 3 != 0,
        max_properties: [2, 3, 4, 100][round % 4],
        merge: round % 5 < 2,
        ..Options::default()
    };
    let mut merged = Accumulator::new(opts);
    for text in texts {
        merged
            .merge(&single(opts, std::slice::from_ref(text)))
            .unwrap();
    }
    let want = merged.schema().unwrap().to_text();
    assert_eq!(
        single(opts, texts).schema().unwrap().to_text(),
        want,
        "{texts:?}"
    );
    let lines = Lines {
        threads: 1,
        ..Lines::new(opts)
    };
    let (acc, _) = read_bytes(lines, &jsonl(texts), &mut |_| true).unwrap();
    assert_eq!(acc.schema().unwrap().to_text(), want, "{texts:?}");
}
