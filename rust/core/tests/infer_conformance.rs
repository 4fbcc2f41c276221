//! The `infer` and `loop` conformance cases, run on the pure Rust accumulator.

use orkestrel_core::infer::{Accumulator, Json, Options, Parsed, Source, Tape};

const CASES: &str = include_str!("../../../tests/conformance/contract/cases.jsonl");
const EXPECTED: &str = include_str!("../../../tests/conformance/contract/expected.jsonl");

fn flag(options: Option<Parsed<'_>>, name: &str) -> Option<bool> {
    match options?.get(name)?.to_json(1)? {
        Json::Bool(b) => Some(b),
        _ => None,
    }
}

#[test]
fn inferred_schemas_match_the_reference() {
    let (mut case_tape, mut expected_tape) = (Tape::default(), Tape::default());
    let mut checked = 0;
    for (case, expected) in CASES.lines().zip(EXPECTED.lines()) {
        case_tape.parse(case.as_bytes()).expect("case parses");
        expected_tape
            .parse(expected.as_bytes())
            .expect("expected parses");
        let request = Parsed::root(&case_tape, case.as_bytes());
        let answer = Parsed::root(&expected_tape, expected.as_bytes());
        let op = request.get("op").and_then(|o| o.to_json(1));
        let want = match op {
            Some(Json::Str(ref s)) if &**s == b"infer" => answer.get("result"),
            Some(Json::Str(ref s)) if &**s == b"loop" => {
                answer.get("result").and_then(|r| r.get("inferred"))
            }
            _ => continue,
        };
        let want = want.and_then(|w| w.to_json(64)).expect("expected schema");
        let options = request.get("options");
        let opts = Options {
            format: flag(options, "format").unwrap_or(false),
            enums: flag(options, "enum").unwrap_or(false),
            closed: flag(options, "closed").unwrap_or(true),
            ..Options::default()
        };
        let mut acc = Accumulator::new(opts);
        let samples = request.get("samples").expect("samples");
        for sample in samples.items() {
            acc.add(sample);
        }
        let got = acc.schema().unwrap();
        assert!(
            got.equivalent(&want),
            "{}\n got: {}\nwant: {}",
            case,
            got.to_text(),
            want.to_text()
        );
        checked += 1;
    }
    assert_eq!(checked, 405);
}
