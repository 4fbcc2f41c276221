//! Compares JSON tokenizers on JSON Lines, one line at a time (issue 32): our tape (structural
//! scan, else the scalar parser), simd-json's tape, sonic-rs (value tree, serde walk, lazy
//! iterators) and serde_json (serde walk). Each is asked for what inference needs: every key and
//! the type of every scalar.
//!
//! `cargo run --release --example tokenizers -- TOOL FILE [ROUNDS]` prints MB/s, best of ROUNDS;
//! `-- check FILE` compares what each tool yields with ours, line by line;
//! `-- probe` prints what each does with lone surrogates, odd numbers and bad lines.
//!
//! Instructions: one round under `valgrind --tool=callgrind --toggle-collect='*measured_*'`
//! counts the per-line functions only (the line split is outside them).
//!
//! sonic-rs picks its SIMD code at compile time (without AVX2 and PCLMULQDQ enabled it runs
//! portable code), so build with `RUSTFLAGS="-C target-cpu=haswell"`; ours and simd-json
//! detect AVX2 at run time.
use std::fmt;
use std::io::Write;
use std::time::Instant;

use orkestrel_core::infer::{Kind, NumberClass, Parsed, Source, Tape};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use sonic_rs::{JsonContainerTrait, JsonType, JsonValueTrait};

/// What a tool yields for one value, in document order.
#[derive(Clone, Debug, PartialEq)]
enum Ev {
    Object,
    Array,
    End,
    Key(Vec<u8>),
    Null,
    Bool,
    Integer,
    Fraction,
    NonFinite,
    Str,
}

fn class(f: f64) -> Ev {
    if !f.is_finite() {
        Ev::NonFinite
    } else if f.fract() == 0.0 {
        Ev::Integer
    } else {
        Ev::Fraction
    }
}

/// Where a walk puts its events: only counted when timing, kept when checking.
struct Out<const KEEP: bool> {
    count: usize,
    evs: Vec<Ev>,
}

impl<const KEEP: bool> Out<KEEP> {
    fn new() -> Self {
        Out {
            count: 0,
            evs: Vec::new(),
        }
    }

    #[inline(always)]
    fn push(&mut self, ev: impl FnOnce() -> Ev) {
        self.count += 1;
        if KEEP {
            self.evs.push(ev());
        }
    }
}

// Ours: the tape, walked through the `Source` inference reads.

fn walk_ours(p: Parsed<'_>, out: &mut Vec<Ev>) {
    match p.kind() {
        Kind::Object => {
            out.push(Ev::Object);
            for (key, value) in p.entries() {
                let key = key.expect("a string key");
                out.push(Ev::Key(Parsed::key_text(key).into_owned()));
                walk_ours(value, out);
            }
            out.push(Ev::End);
        }
        Kind::Array => {
            out.push(Ev::Array);
            for item in p.items() {
                walk_ours(item, out);
            }
            out.push(Ev::End);
        }
        Kind::Null => out.push(Ev::Null),
        Kind::Boolean => out.push(Ev::Bool),
        Kind::Number(NumberClass::Integer) => out.push(Ev::Integer),
        Kind::Number(NumberClass::Fraction) => out.push(Ev::Fraction),
        Kind::Number(NumberClass::NonFinite) => out.push(Ev::NonFinite),
        Kind::String | Kind::Temporal(_) => out.push(Ev::Str),
        Kind::Other => unreachable!("JSON has no other kind"),
    }
}

#[inline(never)]
fn measured_ours(tape: &mut Tape, line: &[u8]) -> usize {
    tape.parse_line_scanned(line).map_or(0, |end| end + 1)
}

#[inline(never)]
fn measured_ours_shapes(tape: &mut Tape, line: &[u8]) -> usize {
    tape.parse_line_shaped(line).map_or(0, |end| end + 1)
}

// simd-json: its tape, filled from a mutable copy of the line (it unescapes strings in place).

struct SimdJson {
    copy: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Option<simd_json::Tape<'static>>,
}

impl SimdJson {
    fn new() -> Self {
        SimdJson {
            copy: Vec::new(),
            buffers: simd_json::Buffers::default(),
            tape: Some(simd_json::Tape::null().reset()),
        }
    }

    fn run<R>(
        &mut self,
        line: &[u8],
        then: impl FnOnce(&[simd_json::Node<'_>]) -> R,
    ) -> Result<R, simd_json::Error> {
        self.copy.clear();
        self.copy.extend_from_slice(line);
        let mut tape = self.tape.take().expect("a tape").reset();
        let parsed = simd_json::fill_tape(&mut self.copy, &mut self.buffers, &mut tape);
        let out = parsed.map(|()| then(&tape.0));
        self.tape = Some(tape.reset());
        out
    }
}

#[inline(never)]
fn measured_simd_json(state: &mut SimdJson, line: &[u8]) -> usize {
    state.run(line, |nodes| nodes.len()).unwrap_or(0)
}

fn walk_simd(nodes: &[simd_json::Node<'_>], at: &mut usize, out: &mut Vec<Ev>) {
    use simd_json::{Node, StaticNode};
    let node = nodes[*at];
    *at += 1;
    match node {
        Node::Object { len, .. } => {
            out.push(Ev::Object);
            for _ in 0..len {
                let Node::String(key) = nodes[*at] else {
                    panic!("a key")
                };
                *at += 1;
                out.push(Ev::Key(key.as_bytes().to_vec()));
                walk_simd(nodes, at, out);
            }
            out.push(Ev::End);
        }
        Node::Array { len, .. } => {
            out.push(Ev::Array);
            for _ in 0..len {
                walk_simd(nodes, at, out);
            }
            out.push(Ev::End);
        }
        Node::String(_) => out.push(Ev::Str),
        Node::Static(StaticNode::Null) => out.push(Ev::Null),
        Node::Static(StaticNode::Bool(_)) => out.push(Ev::Bool),
        Node::Static(StaticNode::I64(_) | StaticNode::U64(_)) => out.push(Ev::Integer),
        Node::Static(StaticNode::F64(f)) => out.push(class(f)),
    }
}

// A serde walk, for sonic-rs and serde_json: keys are read as text, values by type only.

struct Walk<'o, const KEEP: bool>(&'o mut Out<KEEP>);
struct KeyWalk<'o, const KEEP: bool>(&'o mut Out<KEEP>);

impl<'de, const KEEP: bool> DeserializeSeed<'de> for Walk<'_, KEEP> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, const KEEP: bool> Visitor<'de> for Walk<'_, KEEP> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.push(|| Ev::Null);
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.0.push(|| Ev::Null);
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.0.push(|| Ev::Bool);
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.0.push(|| Ev::Integer);
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.0.push(|| Ev::Integer);
        Ok(())
    }
    fn visit_f64<E>(self, f: f64) -> Result<(), E> {
        self.0.push(|| class(f));
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.0.push(|| Ev::Str);
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.push(|| Ev::Array);
        while seq.next_element_seed(Walk(&mut *self.0))?.is_some() {}
        self.0.push(|| Ev::End);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.push(|| Ev::Object);
        while map.next_key_seed(KeyWalk(&mut *self.0))?.is_some() {
            map.next_value_seed(Walk(&mut *self.0))?;
        }
        self.0.push(|| Ev::End);
        Ok(())
    }
}

impl<'de, const KEEP: bool> DeserializeSeed<'de> for KeyWalk<'_, KEEP> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, const KEEP: bool> Visitor<'de> for KeyWalk<'_, KEEP> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, key: &str) -> Result<(), E> {
        self.0.push(|| Ev::Key(key.as_bytes().to_vec()));
        Ok(())
    }
}

fn sonic_serde<const KEEP: bool>(line: &[u8], out: &mut Out<KEEP>) -> sonic_rs::Result<()> {
    let mut de = sonic_rs::Deserializer::from_slice(line);
    Walk(out).deserialize(&mut de)?;
    de.end()
}

fn serde_json_walk<const KEEP: bool>(line: &[u8], out: &mut Out<KEEP>) -> serde_json::Result<()> {
    let mut de = serde_json::Deserializer::from_slice(line);
    Walk(out).deserialize(&mut de)?;
    de.end()
}

#[inline(never)]
fn measured_sonic_serde(line: &[u8]) -> usize {
    let mut out = Out::<false>::new();
    sonic_serde(line, &mut out).map_or(0, |()| out.count)
}

#[inline(never)]
fn measured_serde_json(line: &[u8]) -> usize {
    let mut out = Out::<false>::new();
    serde_json_walk(line, &mut out).map_or(0, |()| out.count)
}

// sonic-rs: its value tree.

#[inline(never)]
fn measured_sonic_dom(line: &[u8]) -> usize {
    sonic_rs::from_slice::<sonic_rs::Value>(line).map_or(0, |v| usize::from(v.is_object()))
}

fn walk_sonic_dom(v: &sonic_rs::Value, out: &mut Vec<Ev>) {
    match v.get_type() {
        JsonType::Object => {
            out.push(Ev::Object);
            for (key, value) in v.as_object().expect("an object").iter() {
                out.push(Ev::Key(key.as_bytes().to_vec()));
                walk_sonic_dom(value, out);
            }
            out.push(Ev::End);
        }
        JsonType::Array => {
            out.push(Ev::Array);
            for item in v.as_array().expect("an array").iter() {
                walk_sonic_dom(item, out);
            }
            out.push(Ev::End);
        }
        JsonType::Null => out.push(Ev::Null),
        JsonType::Boolean => out.push(Ev::Bool),
        JsonType::String => out.push(Ev::Str),
        JsonType::Number if v.is_f64() => out.push(class(v.as_f64().expect("a number"))),
        JsonType::Number => out.push(Ev::Integer),
    }
}

// sonic-rs: lazy iterators, one per container (each skips its children's text once more when
// they are walked in turn).

fn sonic_lazy<const KEEP: bool>(
    raw: &str,
    ty: JsonType,
    out: &mut Out<KEEP>,
) -> sonic_rs::Result<()> {
    match ty {
        JsonType::Object => {
            out.push(|| Ev::Object);
            for entry in sonic_rs::to_object_iter(raw) {
                let (key, value) = entry?;
                out.push(|| Ev::Key(key.as_bytes().to_vec()));
                sonic_lazy(value.as_raw_str(), value.get_type(), out)?;
            }
            out.push(|| Ev::End);
        }
        JsonType::Array => {
            out.push(|| Ev::Array);
            for item in sonic_rs::to_array_iter(raw) {
                let item = item?;
                sonic_lazy(item.as_raw_str(), item.get_type(), out)?;
            }
            out.push(|| Ev::End);
        }
        JsonType::Null => out.push(|| Ev::Null),
        JsonType::Boolean => out.push(|| Ev::Bool),
        JsonType::String => out.push(|| Ev::Str),
        JsonType::Number => out.push(|| class(raw.parse().unwrap_or(f64::NAN))),
    }
    Ok(())
}

fn sonic_lazy_line<const KEEP: bool>(line: &[u8], out: &mut Out<KEEP>) -> sonic_rs::Result<()> {
    let root = sonic_rs::get_from_slice(line, &[] as &[&str])?;
    sonic_lazy(root.as_raw_str(), root.get_type(), out)
}

#[inline(never)]
fn measured_sonic_lazy(line: &[u8]) -> usize {
    let mut out = Out::<false>::new();
    sonic_lazy_line(line, &mut out).map_or(0, |()| out.count)
}

// The driver.

const TOOLS: [&str; 7] = [
    "ours",
    "ours-shapes",
    "simd-json",
    "sonic-serde",
    "sonic-dom",
    "sonic-lazy",
    "serde_json",
];

/// The non-blank lines of a file, without their `\n`.
fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == b'\n')
        .filter(|l| l.iter().any(|b| !b" \t\r".contains(b)))
        .collect()
}

/// One pass of `tool` over every line: a checksum, so no tool's work is dropped.
fn pass(tool: &str, lines: &[&[u8]], tape: &mut Tape, simd: &mut SimdJson) -> usize {
    let mut sum = 0usize;
    for &line in lines {
        sum += match tool {
            "ours" => measured_ours(tape, line),
            "ours-shapes" => measured_ours_shapes(tape, line),
            "simd-json" => measured_simd_json(simd, line),
            "sonic-serde" => measured_sonic_serde(line),
            "sonic-dom" => measured_sonic_dom(line),
            "sonic-lazy" => measured_sonic_lazy(line),
            "serde_json" => measured_serde_json(line),
            _ => panic!("tools: {TOOLS:?}"),
        };
    }
    std::hint::black_box(sum)
}

/// What `tool` yields for one line, or its error.
fn yields(
    tool: &str,
    line: &[u8],
    tape: &mut Tape,
    simd: &mut SimdJson,
) -> Result<Vec<Ev>, String> {
    let mut out = Out::<true>::new();
    match tool {
        "ours" | "ours-shapes" => {
            let parsed = if tool == "ours" {
                tape.parse_line_scanned(line)
            } else {
                tape.parse_line_shaped(line)
            };
            parsed.map_err(|e| format!("{e:?}"))?;
            walk_ours(Parsed::root(tape, line), &mut out.evs);
        }
        "simd-json" => simd
            .run(line, |nodes| walk_simd(nodes, &mut 0, &mut out.evs))
            .map_err(|e| e.to_string())?,
        "sonic-serde" => sonic_serde(line, &mut out).map_err(|e| e.to_string())?,
        "sonic-dom" => {
            let v = sonic_rs::from_slice::<sonic_rs::Value>(line).map_err(|e| e.to_string())?;
            walk_sonic_dom(&v, &mut out.evs);
        }
        "sonic-lazy" => sonic_lazy_line(line, &mut out).map_err(|e| e.to_string())?,
        "serde_json" => serde_json_walk(line, &mut out).map_err(|e| e.to_string())?,
        _ => panic!("tools: {TOOLS:?}"),
    }
    Ok(out.evs)
}

fn short(text: String) -> String {
    let text = text.replace('\n', " ");
    match text.char_indices().nth(70) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let tool = args.next().expect("a tool, check or probe");
    let mut stdout = std::io::stdout();
    let mut tape = Tape::default();
    let mut simd = SimdJson::new();
    if tool == "probe" {
        let cases: &[&[u8]] = &[
            br#""\ud800""#,
            br#"{"a": "\ud800x"}"#,
            br#"{"\udc00x": 1}"#,
            br#""\ud83d\ude00""#,
            b"1e400",
            b"-1e400",
            b"1e-400",
            b"-0",
            b"1.0",
            b"1E2",
            b"18446744073709551616",
            b"123456789012345678901234567890",
            b"-9223372036854775809",
            br#"{"a":1,}"#,
            b"[1,]",
            b"[1 2]",
            br#"{"a" 1}"#,
            b"01",
            b"1.",
            b".5",
            b"-",
            b"NaN",
            b"nul",
            br#""abc"#,
            br#"{"a":1} x"#,
            br#"{"a":1}{"b":2}"#,
            b"\"a\x01b\"",
            b"\"\xff\"",
            br#""\u12""#,
            br#""\q""#,
            br#"{"a":1,"a":2}"#,
        ];
        for &case in cases {
            writeln!(stdout, "{}", String::from_utf8_lossy(case)).expect("stdout");
            for name in TOOLS {
                let said = match yields(name, case, &mut tape, &mut simd) {
                    Ok(evs) => format!("ok {evs:?}"),
                    Err(e) => format!("error: {e}"),
                };
                writeln!(stdout, "  {name:12} {}", short(said)).expect("stdout");
            }
        }
        return;
    }
    if tool == "check" {
        let path = args.next().expect("a JSON Lines file");
        let data = std::fs::read(&path).expect("readable file");
        let lines = lines(&data);
        let expected: Vec<_> = lines
            .iter()
            .map(|line| yields("ours", line, &mut tape, &mut simd))
            .collect();
        for name in &TOOLS[1..] {
            let mut differ = 0;
            let mut first = None;
            for (i, line) in lines.iter().enumerate() {
                let got = yields(name, line, &mut tape, &mut simd);
                let same = match (&got, &expected[i]) {
                    (Ok(a), Ok(b)) => a == b,
                    (Err(_), Err(_)) => true,
                    _ => false,
                };
                if !same {
                    differ += 1;
                    first.get_or_insert(i);
                }
            }
            writeln!(
                stdout,
                "{name}: {differ} of {} lines differ from ours{}",
                lines.len(),
                first.map_or(String::new(), |i| format!(" (first: line {})", i + 1))
            )
            .expect("stdout");
        }
        return;
    }
    let path = args.next().expect("a JSON Lines file");
    let rounds: usize = args.next().map_or(5, |r| r.parse().expect("rounds"));
    let data = std::fs::read(&path).expect("readable file");
    let lines = lines(&data);
    let mut best = f64::MAX;
    let mut sum = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        sum = pass(&tool, &lines, &mut tape, &mut simd);
        best = best.min(start.elapsed().as_secs_f64());
    }
    let rate = data.len() as f64 / best / 1e6;
    writeln!(
        stdout,
        "{tool}: {rate:.0} MB/s (best of {rounds}); {} bytes, {} lines, checksum {sum}",
        data.len(),
        lines.len()
    )
    .expect("stdout");
}
