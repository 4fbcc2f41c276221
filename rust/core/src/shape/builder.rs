//! Builder argument checks (spec §4.1), run before the declaration gate.

use super::fields::{field, fields_of};
use super::gate::validate;
use super::Declaration;
use crate::errors::{path_of, Code, Context, ContractError, Limit};
use crate::text::number::is_safe_integer;
use crate::text::preview::preview as received;
use crate::value::{Node, View};

fn length_bounds<N: Node>(
    builder: &str,
    shape: &'static str,
    fields: &[(Box<[u8]>, N)],
) -> Result<(), ContractError> {
    for name in ["min", "max"] {
        if let Some(value) = field(fields, name) {
            if !value
                .view()
                .number()
                .is_some_and(|n| is_safe_integer(n) && n >= 0.0)
            {
                return Err(ContractError::new(
                    Code::Bound,
                    format!("{builder}: {name} must be a non-negative safe integer"),
                    Context {
                        shape: Some(shape),
                        limit: Some(Limit::Text("non-negative safe integer")),
                        received: Some(received(value)),
                        ..Context::default()
                    },
                ));
            }
        }
    }
    Ok(())
}

fn structure(
    builder: &str,
    message: &str,
    path: Vec<Vec<u8>>,
    shape: &'static str,
) -> ContractError {
    ContractError::new(
        Code::Structure,
        format!("{builder}: {message}"),
        Context {
            path: Some(path),
            shape: Some(shape),
            ..Context::default()
        },
    )
}

/// Runs the checks of the builder named `builder` on the shape it built, then the gate.
pub fn check_builder<N: Node>(builder: &str, shape: &N) -> Result<Declaration, ContractError> {
    let fields = fields_of(shape).unwrap_or_default();
    match builder {
        "string_shape" => {
            length_bounds(builder, "string", &fields)?;
            if let Some(pattern) = field(&fields, "pattern") {
                if !matches!(pattern.view(), View::Str(_)) {
                    return Err(ContractError::new(
                        Code::Pattern,
                        format!("{builder}: pattern must be a string"),
                        Context {
                            shape: Some("string"),
                            received: Some(received(pattern)),
                            ..Context::default()
                        },
                    ));
                }
            }
        }
        "number_shape" | "integer_shape" => {
            let shape = if builder == "integer_shape" {
                "integer"
            } else {
                "number"
            };
            for name in ["min", "max"] {
                if let Some(value) = field(&fields, name) {
                    if value.view().finite().is_none() {
                        return Err(ContractError::new(
                            Code::Bound,
                            format!("{builder}: {name} must be finite"),
                            Context {
                                shape: Some(shape),
                                limit: Some(Limit::Text("finite number")),
                                received: Some(received(value)),
                                ..Context::default()
                            },
                        ));
                    }
                }
            }
        }
        "array_shape" => length_bounds(builder, "array", &fields)?,
        "literal_shape" => {
            let values = field(&fields, "values").filter(|v| matches!(v.view(), View::Array));
            let Some(values) = values else {
                return Err(structure(
                    builder,
                    "values must be an array",
                    path_of(["values"]),
                    "literal",
                ));
            };
            for index in 0..values.len().unwrap_or(0) {
                let ok = values.item(index).is_ok_and(|v| {
                    matches!(
                        v.view(),
                        View::Str(_) | View::Int(_) | View::Float(_) | View::Bool(_)
                    )
                });
                if !ok {
                    return Err(structure(
                        builder,
                        "every value must be a string, number, or boolean",
                        path_of(["values".to_owned(), index.to_string()]),
                        "literal",
                    ));
                }
            }
        }
        "object_shape" if field(&fields, "properties").and_then(fields_of).is_none() => {
            return Err(structure(
                builder,
                "properties must be a plain record",
                path_of(["properties"]),
                "object",
            ));
        }
        "record_shape" => {
            let bad = field(&fields, "additionalProperties")
                .is_none_or(|v| matches!(v.view(), View::Null | View::Bool(_)));
            if bad {
                return Err(structure(
                    builder,
                    "values must be a shape",
                    path_of(["additionalProperties"]),
                    "object",
                ));
            }
        }
        _ => {}
    }
    validate(shape, builder == "optional_shape")
}
