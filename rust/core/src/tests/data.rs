//! JSON data checks and clones, raw schemas and `schema_to_shape`.

use serde_json::{json, Value};

use super::{contract, parse};
use crate::contract::jsonvalue::{clone_json, is_json_value};
use crate::errors::Code;
use crate::shape::from_schema::schema_to_shape;
use crate::shape::gate::validate;
use crate::testing::{to_value, ValueSink};

#[test]
fn json_values_are_finite_and_wide_values_are_fine() {
    assert!(is_json_value(&&json!({"a": [1, null, "x", {"b": true}]})));
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    assert!(is_json_value(&&deep));
    let wide = Value::Array(vec![json!({"k": [1, 2]}); 10_000]);
    assert!(is_json_value(&&wide));
}

#[test]
fn clones_copy_and_count() {
    let value = json!({"b": [1], "a": {"c": null}});
    let copy = clone_json(&&value, &mut ValueSink, "clone_json_value").expect("clones");
    assert_eq!(copy, value);
    let big = Value::Array(vec![Value::Array(vec![json!(0); 1000]); 300]);
    let error = clone_json(&&big, &mut ValueSink, "clone_json_value").expect_err("too big");
    assert_eq!(
        (error.code, error.message.as_str()),
        (
            Code::Clone,
            "clone_json_value: snapshot exceeds the node limit"
        )
    );
}

#[test]
fn raw_schemas_are_checked_and_cloned_verbatim() {
    let shape = json!({"type": "raw", "schema": {"type": "object", "properties": {"a": {"enum": [1, "x"]}}, "required": ["a"], "const": null}});
    let error = validate(&&shape, false)
        .map(|_| ())
        .expect_err("const is refused");
    assert_eq!(error.code, Code::Structure);
    let schema = json!({"anyOf": [{"type": "string", "pattern": "^(?=a)"}, {"maxLength": 3}], "description": "d"});
    let compiled = contract(&json!({"type": "raw", "schema": schema}));
    assert_eq!(to_value(compiled.schema()), schema);
    assert_eq!(
        parse(&compiled, &json!({"any": 1})),
        Some(json!({"any": 1}))
    );
    let mut deep = json!({});
    for _ in 0..600 {
        deep = json!({"items": deep});
    }
    let error = validate(&&json!({"type": "raw", "schema": deep}), false)
        .map(|_| ())
        .expect_err("too deep");
    assert_eq!(
        error.message,
        "validate_shape: raw schema exceeds the compilation depth limit"
    );
}

#[test]
fn schema_to_shape_follows_the_precedence_rules() {
    let cases = [
        (json!({"enum": [null]}), json!({"type": "null"})),
        (
            json!({"enum": [], "type": "boolean"}),
            json!({"type": "boolean"}),
        ),
        (
            json!({"oneOf": [1, {"type": "null"}], "anyOf": [{"type": "string"}]}),
            json!({"anyOf": [{"anyOf": [{"type": "string"}]}, {"anyOf": [{"type": "string"}]}]}),
        ),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "type": "number"}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        ),
        (
            json!({"type": "array"}),
            json!({"type": "array", "items": {}}),
        ),
        (
            json!({"type": "array", "items": [{"type": "string"}], "minItems": 2}),
            json!({"type": "array", "items": {}, "minItems": 2}),
        ),
        (
            json!({"properties": {"a": true}, "required": ["a", "b", 3]}),
            json!({"anyOf": [
                {"type": "object", "properties": {"a": {}}, "required": ["a"], "additionalProperties": true},
                {"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
                {"type": "array", "items": {}},
            ]}),
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
        ),
        (
            json!({"type": "integer", "minimum": 0.5}),
            json!({"type": "integer", "minimum": 0.5}),
        ),
        (
            json!({"const": 1, "type": "string", "description": "d"}),
            json!({"type": "string", "description": "d"}),
        ),
        (
            json!({"not": {}, "description": "d"}),
            json!({"description": "d"}),
        ),
    ];
    for (schema, emitted) in cases {
        let shape = to_value(&schema_to_shape(&&schema));
        assert_eq!(to_value(contract(&shape).schema()), emitted, "{schema}");
    }
}
