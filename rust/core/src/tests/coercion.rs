//! Coercion, unions, literals and objects in `parse` and `explain`.

use serde_json::{json, Value};

use super::{contract, explain, parse};

#[test]
fn union_order_decides_coercion() {
    let cases = [
        (
            json!([{"type": "boolean"}, {"type": "number", "integer": true}]),
            json!("1"),
            Some(json!(true)),
        ),
        (
            json!([{"type": "number", "integer": true}, {"type": "boolean"}]),
            json!("1"),
            Some(json!(1.0)),
        ),
        (
            json!([{"type": "number", "integer": true}, {"type": "boolean"}]),
            json!("true"),
            Some(json!(true)),
        ),
        (
            json!([{"type": "number", "integer": true}, {"type": "string", "min": 2}]),
            json!(5.5),
            Some(json!("5.5")),
        ),
        (
            json!([{"type": "number", "integer": true}, {"type": "string", "min": 2}]),
            json!("5"),
            Some(json!(5.0)),
        ),
    ];
    for (variants, value, expected) in cases {
        let union = contract(&json!({"type": "union", "variants": variants}));
        assert_eq!(parse(&union, &value), expected, "{variants} {value}");
    }
}

#[test]
fn one_of_counts_strict_matches_and_never_coerces() {
    let one_of = contract(&json!({"type": "union", "mode": "oneOf", "variants": [
        {"type": "number"}, {"type": "number", "integer": true}
    ]}));
    assert!(!one_of.is_valid(&&json!(3)));
    assert!(one_of.is_valid(&&json!(3.5)));
    assert_eq!(parse(&one_of, &json!("3")), None);
    assert_eq!(
        explain(&one_of, &json!(3)),
        json!([{"reason": "oneOf", "path": [], "matched": 2}])
    );
    assert_eq!(
        explain(&one_of, &json!("x")),
        json!([
            {"reason": "oneOf", "path": [], "matched": 0},
            {"reason": "type", "path": [], "expected": "number", "received": "\"x\""}
        ])
    );
}

#[test]
fn literals_trim_but_never_coerce() {
    let literal = contract(&json!({"type": "literal", "values": ["a", 1, true]}));
    assert_eq!(parse(&literal, &json!("\u{a0}a\u{2028}")), Some(json!("a")));
    assert_eq!(parse(&literal, &json!("1")), None);
    assert_eq!(parse(&literal, &json!("true")), None);
    assert!(literal.is_valid(&&json!(1.0)));
    assert!(!literal.is_valid(&&json!(" a")));
}

#[test]
fn booleans_and_numbers_coerce_as_the_reference_does() {
    let boolean = contract(&json!({"type": "boolean"}));
    for (value, expected) in [
        (json!("true"), Some(json!(true))),
        (json!("0"), Some(json!(false))),
        (json!(1), Some(json!(true))),
        (json!(-0.0), Some(json!(false))),
        (json!("TRUE"), None),
        (json!(2), None),
        (json!(null), None),
    ] {
        assert_eq!(parse(&boolean, &value), expected, "{value}");
    }
    let integer = contract(&json!({"type": "number", "integer": true, "min": 0}));
    assert_eq!(parse(&integer, &json!("4.0")), Some(json!(4.0)));
    assert_eq!(parse(&integer, &json!("4.5")), None);
    assert_eq!(parse(&integer, &json!(" 0x1A ")), Some(json!(26.0)));
    assert_eq!(
        explain(&integer, &json!("-1.5")),
        json!([
            {"reason": "constraint", "path": [], "expected": "integer", "constraint": "integer", "received": "-1.5"},
            {"reason": "constraint", "path": [], "expected": "integer", "constraint": "min", "limit": 0, "received": "-1.5"}
        ])
    );
    let string = contract(&json!({"type": "string", "pattern": "^a+$"}));
    assert_eq!(parse(&string, &json!(5)), None);
    assert_eq!(
        parse(&contract(&json!({"type": "string"})), &json!(1e21)),
        Some(json!("1e+21"))
    );
}

#[test]
fn objects_drop_closed_extras_and_order_open_ones() {
    let closed = contract(&json!({"type": "object", "properties": {"id": {"type": "string"}}}));
    let value = json!({"id": "a", "debug": true});
    assert!(!closed.is_valid(&&value));
    assert_eq!(parse(&closed, &value), Some(json!({"id": "a"})));
    assert_eq!(explain(&closed, &value), json!([]));
    let tail = contract(
        &json!({"type": "object", "properties": {}, "additionalProperties": {"type": "number", "integer": true}}),
    );
    let parsed = parse(&tail, &json!({"x": "1", "5": 2, "a": "3", "01": 4})).expect("parses");
    let keys: Vec<&String> = parsed.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["5", "x", "a", "01"]);
    assert_eq!(
        explain(&tail, &json!({"b": "x", "2": "y"})),
        json!([
            {"reason": "type", "path": ["2"], "expected": "integer", "received": "\"y\""},
            {"reason": "type", "path": ["b"], "expected": "integer", "received": "\"x\""}
        ])
    );
    let open = contract(
        &json!({"type": "object", "properties": {"a": {"type": "null"}}, "additionalProperties": true}),
    );
    assert_eq!(
        parse(&open, &json!({"a": null, "z": [1]})),
        Some(json!({"a": null, "z": [1]}))
    );
}

#[test]
fn any_of_reports_the_shortest_variant() {
    let union = contract(&json!({"type": "union", "variants": [
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        {"type": "array", "items": {"type": "null"}}
    ]}));
    assert_eq!(
        explain(&union, &json!({"a": null})),
        json!([
            {"reason": "variant", "path": [], "variants": 2},
            {"reason": "type", "path": [], "expected": "array", "received": "object"}
        ])
    );
    assert_eq!(explain(&union, &json!([null])), json!([]));
    let value = Value::Array(vec![json!(1); 3]);
    let faults = explain(&union, &value);
    assert_eq!(faults.as_array().map(Vec::len), Some(2));
}

#[test]
fn a_number_string_coerces_as_the_trimmed_reading_does() {
    use crate::contract::coerce_number;
    use crate::text::number::parse_number;
    use crate::text::trim;
    use crate::value::View;
    use std::borrow::Cow;
    let alphabet = b"0123456789..+-e \t";
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut plain = 0;
    for _ in 0..200_000 {
        crate::testing::xorshift(&mut state);
        let len = (state % 19) as usize;
        let text: Vec<u8> = (0..len)
            .map(|at| {
                let pick = (state >> (3 * at % 61)) as usize;
                // Mostly digits, so that plain integers and short decimals are common.
                if pick % 4 == 0 {
                    alphabet[pick % alphabet.len()]
                } else {
                    b'0' + (pick % 10) as u8
                }
            })
            .collect();
        let body = trim(&text);
        let expected = (!body.is_empty())
            .then(|| parse_number(body))
            .flatten()
            .filter(|n| n.is_finite());
        let got = coerce_number(&View::Str(Cow::Borrowed(&text)));
        plain += usize::from(!text.is_empty() && text.iter().all(u8::is_ascii_digit));
        assert_eq!(
            got.map(f64::to_bits),
            expected.map(f64::to_bits),
            "{:?}",
            String::from_utf8_lossy(&text)
        );
    }
    assert!(plain > 10_000, "{plain}");
}
