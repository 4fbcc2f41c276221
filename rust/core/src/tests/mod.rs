//! Tests of the contract core over serde_json values.

mod coercion;
mod data;
mod text;

use serde_json::{json, Value};

use crate::contract::{Contract, Path, Segment};
use crate::errors::Code;
use crate::shape::builder::check_builder;
use crate::shape::from_schema::schema_to_shape;
use crate::shape::gate::validate;
use crate::testing::{fault_value, to_value, ValueSink};

pub(super) fn contract(shape: &Value) -> Contract {
    Contract::compile(validate(&shape, false).expect("valid shape"))
}

pub(super) fn explain(contract: &Contract, value: &Value) -> Value {
    Value::Array(
        contract
            .explain(&value, Vec::new())
            .iter()
            .map(fault_value)
            .collect(),
    )
}

pub(super) fn parse(contract: &Contract, value: &Value) -> Option<Value> {
    contract.parse(&value, &mut ValueSink).expect("readable")
}

fn user() -> Contract {
    contract(&json!({"type": "object", "properties": {
        "name": {"type": "string", "min": 1},
        "age": {"type": "optional", "inner": {"type": "number", "integer": true, "min": 0}},
    }}))
}

#[test]
fn user_contract_matches_the_reference() {
    let user = user();
    assert!(user.is_valid(&&json!({"name": "Ada"})));
    assert_eq!(
        parse(&user, &json!({"name": 5, "age": "7", "x": 1})),
        Some(json!({"name": "5", "age": 7.0}))
    );
    assert_eq!(parse(&user, &json!({"name": "", "age": 1})), None);
    assert_eq!(
        explain(&user, &json!({"name": "", "age": -1.5})),
        json!([
            {"reason":"constraint","path":["name"],"expected":"string","constraint":"min","limit":1,"received":"\"\""},
            {"reason":"constraint","path":["age"],"expected":"integer","constraint":"integer","received":"-1.5"},
            {"reason":"constraint","path":["age"],"expected":"integer","constraint":"min","limit":0,"received":"-1.5"}
        ])
    );
    assert_eq!(
        explain(&user, &json!({"age": "x"})),
        json!([
            {"reason":"missing","path":["name"],"expected":"string"},
            {"reason":"type","path":["age"],"expected":"integer","received":"\"x\""}
        ])
    );
}

#[test]
fn schemas_are_emitted_in_reference_form() {
    let cases = [
        (
            json!({"type":"string","min":1,"pattern":"^a$","description":"d"}),
            json!({"type":"string","minLength":1,"pattern":"^a$","description":"d"}),
        ),
        (
            json!({"type":"object","properties":{}}),
            json!({"type":"object","additionalProperties":false}),
        ),
        (
            json!({"type":"object","properties":{"a":{"type":"optional","inner":{"type":"number","integer":true}}},"additionalProperties":true}),
            json!({"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true}),
        ),
        (
            json!({"type":"nullable","inner":{"type":"literal","values":["x"]}}),
            json!({"anyOf":[{"enum":["x"]},{"type":"null"}]}),
        ),
        (
            json!({"type":"union","variants":[{"type":"boolean"},{"type":"null"}],"mode":"oneOf"}),
            json!({"oneOf":[{"type":"boolean"},{"type":"null"}]}),
        ),
        (json!({"type":"json"}), json!({})),
        (
            json!({"type":"object","properties":{"b":{"type":"null"},"1":{"type":"null"},"a":{"type":"optional","inner":{"type":"null"}}}}),
            json!({"type":"object","properties":{"1":{"type":"null"},"b":{"type":"null"},"a":{"type":"null"}},"required":["1","b"],"additionalProperties":false}),
        ),
    ];
    for (shape, schema) in cases {
        assert_eq!(to_value(contract(&shape).schema()), schema, "{shape}");
    }
}

#[test]
fn the_gate_reports_codes_in_precedence() {
    let cases = [
        (json!({"type":"string","min":3,"max":1}), Code::Range),
        (json!({"type":"number","integer":"yes"}), Code::Structure),
        (json!({"type":"literal","values":[0,-0.0]}), Code::Structure),
        (json!({"type":"literal","values":[]}), Code::Empty),
        (json!({"type":"array","items":"x"}), Code::Structure),
        (
            json!({"type":"optional","inner":{"type":"null"}}),
            Code::Placement,
        ),
        (
            json!({"type":"object","properties":{"a":{"type":"wat"}}}),
            Code::Structure,
        ),
        (
            json!({"type":"raw","schema":{"minimum":"1"}}),
            Code::Structure,
        ),
        (
            json!({"type":"raw","schema":{"const":"x"}}),
            Code::Structure,
        ),
        (json!({"type":"string","pattern":"(?=a)"}), Code::Pattern),
        (
            json!({"type":"number","min":1.5,"max":1.6,"integer":true}),
            Code::Range,
        ),
    ];
    for (shape, code) in cases {
        assert_eq!(
            validate(&&shape, false).map(|_| ()).unwrap_err().code,
            code,
            "{shape}"
        );
    }
    let error = check_builder("string_shape", &&json!({"type":"string","min":1.5})).unwrap_err();
    assert_eq!(
        (error.code, error.message.as_str()),
        (
            Code::Bound,
            "string_shape: min must be a non-negative safe integer"
        )
    );
}

#[test]
fn depth_and_expansion_are_limited() {
    let mut deep = json!({"type":"null"});
    for _ in 0..513 {
        deep = json!({"type":"array","items":deep});
    }
    assert_eq!(
        validate(&&deep, false).map(|_| ()).unwrap_err().code,
        Code::Depth
    );
    let mut wide = json!({"type":"null"});
    for _ in 0..14 {
        wide = json!({"type":"union","variants":[wide.clone(), wide]});
    }
    assert_eq!(
        validate(&&wide, false).map(|_| ()).unwrap_err().code,
        Code::Expansion
    );
}

#[test]
fn schema_to_shape_widens() {
    let shape = to_value(&schema_to_shape(&&json!({"enum":["a",1,null]})));
    let compiled = contract(&shape);
    assert_eq!(
        to_value(compiled.schema()),
        json!({"anyOf":[{"enum":["a",1]},{"type":"null"}]})
    );
    assert_eq!(parse(&compiled, &json!(" a")), Some(json!("a")));
    assert_eq!(parse(&compiled, &json!(null)), Some(json!(null)));
    let shape = to_value(&schema_to_shape(
        &&json!({"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}),
    ));
    let compiled = contract(&shape);
    assert_eq!(
        parse(&compiled, &json!({"id":"3","x":1})),
        Some(json!({"id":3.0,"x":1}))
    );
    let shape = to_value(&schema_to_shape(&&json!({"type":["string","null"]})));
    assert_eq!(to_value(contract(&shape).schema()), json!({}));
}

#[test]
fn fault_reports_are_capped() {
    let list = contract(&json!({"type":"array","items":{"type":"string"},"max":3}));
    let value = Value::Array((0..70).map(Value::from).map(|_| Value::Null).collect());
    let faults = list.explain(&&value, Vec::new());
    assert_eq!(faults.len(), 64);
}

#[test]
fn key_lookup_handles_shared_prefixes_and_many_keys() {
    let mut properties = serde_json::Map::new();
    for name in ["abcdefgh_1", "abcdefgh_2", "a", "", "é"] {
        properties.insert(name.to_owned(), json!({"type": "string"}));
    }
    for index in 0..40 {
        properties.insert(format!("key{index}"), json!({"type": "null"}));
    }
    let wide = contract(&json!({"type": "object", "properties": properties.clone()}));
    let mut value = serde_json::Map::new();
    for name in ["abcdefgh_1", "abcdefgh_2", "a", "", "é"] {
        value.insert(name.to_owned(), json!("x"));
    }
    for index in 0..40 {
        value.insert(format!("key{index}"), Value::Null);
    }
    assert!(wide.is_valid(&&Value::Object(value.clone())));
    value.insert("abcdefgh_3".to_owned(), json!("x"));
    assert!(!wide.is_valid(&&Value::Object(value)));
    let narrow = contract(&json!({"type": "object", "properties": {
        "abcdefgh_1": {"type": "string"}, "abcdefgh_2": {"type": "null"}
    }}));
    assert!(narrow.is_valid(&&json!({"abcdefgh_1": "x", "abcdefgh_2": null})));
    assert!(!narrow.is_valid(&&json!({"abcdefgh_1": "x", "abcdefgh_2": "y"})));
    let members =
        contract(&json!({"type": "literal", "values": ["abcdefgh_1", "abcdefgh_2", 1, true]}));
    assert!(members.is_valid(&&json!("abcdefgh_2")));
    assert!(!members.is_valid(&&json!("abcdefgh_3")));
    assert!(members.is_valid(&&json!(1.0)));
    assert!(!members.is_valid(&&json!(false)));
}

/// A random shape at most `depth` containers deep, for the laws.
fn random_shape(state: &mut u64, depth: u32) -> Value {
    let pick = crate::testing::xorshift(state) % if depth == 0 { 5 } else { 9 };
    match pick {
        0 => json!({"type": "string", "min": 2}),
        1 => json!({"type": "number", "integer": true, "min": 0}),
        2 => json!({"type": "boolean"}),
        3 => json!({"type": "literal", "values": ["a", "b"]}),
        4 => json!({"type": "null"}),
        5 | 6 => {
            let mut properties = serde_json::Map::new();
            for name in ["k", "m", "n"] {
                let mut inner = random_shape(state, depth - 1);
                if crate::testing::xorshift(state) % 4 == 0 {
                    inner = json!({"type": "optional", "inner": inner});
                }
                properties.insert(name.into(), inner);
            }
            let mut shape = json!({"type": "object", "properties": properties});
            if crate::testing::xorshift(state) % 2 == 0 {
                shape["additionalProperties"] = random_shape(state, 0);
            }
            shape
        }
        7 => json!({"type": "array", "items": random_shape(state, depth - 1)}),
        _ => json!({"type": "nullable", "inner": random_shape(state, depth - 1)}),
    }
}

/// A random value for `shape`: mostly of its structure, with scalars, missing keys and
/// extra keys at random, so that faults turn up at every depth.
fn random_value(state: &mut u64, shape: &Value) -> Value {
    let roll = crate::testing::xorshift(state) % 16;
    let scalars = [
        json!("x"),
        json!("abc"),
        json!(-1),
        json!(2.5),
        json!("7"),
        json!(null),
    ];
    if roll < 3 {
        return scalars[(crate::testing::xorshift(state) % 6) as usize].clone();
    }
    match shape["type"].as_str() {
        Some("object") => {
            let mut out = serde_json::Map::new();
            for (name, inner) in shape["properties"].as_object().into_iter().flatten() {
                if crate::testing::xorshift(state) % 6 != 0 {
                    out.insert(name.clone(), random_value(state, inner));
                }
            }
            for extra in ["x", "0", "12"] {
                if crate::testing::xorshift(state) % 4 == 0 {
                    out.insert(
                        extra.into(),
                        random_value(state, &json!({"type": "string"})),
                    );
                }
            }
            Value::Object(out)
        }
        Some("array") => {
            let len = crate::testing::xorshift(state) % 4;
            Value::Array(
                (0..len)
                    .map(|_| random_value(state, &shape["items"]))
                    .collect(),
            )
        }
        Some("nullable" | "optional") => random_value(state, &shape["inner"]),
        Some("literal") => json!(["a", "b", "c"][(crate::testing::xorshift(state) % 3) as usize]),
        _ => scalars[(crate::testing::xorshift(state) % 6) as usize].clone(),
    }
}

#[test]
fn inline_fault_paths_equal_heap_paths() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let (mut short, mut long) = (0usize, 0usize);
    for _ in 0..400 {
        let shape = random_shape(&mut state, 6);
        let compiled = contract(&shape);
        for _ in 0..20 {
            let value = random_value(&mut state, &shape);
            let prefix: Vec<Segment> = (0..crate::testing::xorshift(&mut state) % 3)
                .map(|i| Segment::Key(format!("p{i}").into_bytes().into()))
                .collect();
            let inline = compiled.explain(&&value, prefix.clone());
            let heap = compiled.explain_long_paths(&&value, prefix);
            assert_eq!(inline, heap, "{shape} {value}");
            for fault in &inline {
                match fault.path {
                    Path::Short(..) => short += 1,
                    Path::Long(_) => long += 1,
                }
            }
        }
    }
    assert!(
        short > 1000 && long > 1000,
        "{short} inline, {long} on the heap"
    );
}
