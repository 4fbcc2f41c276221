//! The gate's observation of one node: its type, fields, bounds and child slots.

use super::fields::field;
use super::gate::{Child, Gate};
use super::Decl;
use crate::constants::COMPILE_DEPTH_LIMIT;
use crate::errors::{Code, Context, Limit};
use crate::json::Num;
use crate::pattern::Pattern;
use crate::text::number::{is_safe_integer, number_to_string};
use crate::text::preview::preview_string;
use crate::value::{Node, View};

/// A node's draft declaration (children by local slot), its slots and its raw height.
pub(super) type Observed<N> = (Decl, Vec<Child<N>>, usize);

impl<N: Node> Gate<N> {
    pub(super) fn observe(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        depth: usize,
    ) -> Option<Observed<N>> {
        const RECOGNIZED: &str = "every node must be a recognized shape";
        let kind = match field(fields, "type").map(Node::view) {
            Some(View::Str(text)) => text.into_owned(),
            _ => {
                self.refuse_here(RECOGNIZED);
                return None;
            }
        };
        let kind = std::str::from_utf8(&kind).unwrap_or("");
        let description = if matches!(kind, "optional" | "nullable" | "raw") {
            None
        } else {
            match field(fields, "description").map(Node::view) {
                None => None,
                Some(View::Str(text)) => Some(text.into_owned().into_boxed_slice()),
                Some(_) => {
                    self.refuse("description must be a string", Some("description"), None);
                    return None;
                }
            }
        };
        let mut children = Vec::new();
        let mut raw = 0;
        let decl = match kind {
            "string" => self.string(fields, description)?,
            "number" => self.number(fields, description)?,
            "boolean" => Decl::Boolean { description },
            "null" => Decl::Null { description },
            "json" => Decl::Json { description },
            "literal" => self.literal(fields, description)?,
            "array" => {
                let (min, max) = self.lengths(fields, "array")?;
                self.range_check(
                    "an array",
                    "array",
                    min.map(|m| m as f64),
                    max.map(|m| m as f64),
                );
                children.push(self.child(field(fields, "items"), "items", None, false));
                Decl::Array {
                    items: 0,
                    min,
                    max,
                    description,
                }
            }
            "object" => self.object(fields, description, &mut children)?,
            "union" => self.union(fields, description, &mut children)?,
            "optional" | "nullable" => {
                children.push(self.child(field(fields, "inner"), "inner", None, false));
                if kind == "optional" {
                    Decl::Optional { inner: 0 }
                } else {
                    Decl::Nullable { inner: 0 }
                }
            }
            "raw" => {
                let schema = field(fields, "schema");
                let (height, schema) = match schema.map(|s| self.raw.inspect(s)) {
                    Some(Ok(inspected)) => inspected,
                    Some(Err(message)) => {
                        self.refuse(&message, Some("schema"), None);
                        return None;
                    }
                    None => {
                        self.refuse("raw schema must be a plain record", Some("schema"), None);
                        return None;
                    }
                };
                if depth + height > COMPILE_DEPTH_LIMIT {
                    self.refuse(
                        "raw schema exceeds the compilation depth limit",
                        Some("schema"),
                        None,
                    );
                    return None;
                }
                raw = height;
                Decl::Raw { schema }
            }
            _ => {
                self.refuse_here(RECOGNIZED);
                return None;
            }
        };
        Some((decl, children, raw))
    }

    fn child(
        &self,
        node: Option<&N>,
        first: &'static str,
        second: Option<Box<[u8]>>,
        optional: bool,
    ) -> Child<N> {
        Child {
            node: node.cloned(),
            first,
            second,
            optional,
        }
    }

    fn number_field(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        name: &'static str,
        shape: &str,
    ) -> Result<Option<Num>, ()> {
        match field(fields, name).map(|v| (v.view(), v)) {
            None => Ok(None),
            Some((View::Int(i), _)) => Ok(Some(Num::Int(i))),
            Some((View::Float(f), _)) => Ok(Some(Num::Float(f))),
            Some(_) => {
                self.refuse(
                    &format!("{shape} {name} must be a number"),
                    Some(name),
                    None,
                );
                Err(())
            }
        }
    }

    fn lengths(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        shape: &'static str,
    ) -> Option<(Option<u64>, Option<u64>)> {
        let min = self.number_field(fields, "min", shape).ok()?;
        let max = self.number_field(fields, "max", shape).ok()?;
        let article = if shape == "array" { "an" } else { "a" };
        for (name, bound) in [("min", min), ("max", max)] {
            if let Some(bound) = bound {
                let value = bound.value();
                if !is_safe_integer(value) || value < 0.0 {
                    self.domain(
                        Code::Bound,
                        &format!(
                            "{article} {shape} shape {name} must be a non-negative safe integer"
                        ),
                        Context {
                            shape: Some(shape),
                            limit: Some(Limit::Text("non-negative safe integer")),
                            received: Some(number_to_string(value)),
                            ..Context::default()
                        },
                    );
                }
            }
        }
        let as_length = |n: Option<Num>| n.map(|n| n.value().max(0.0) as u64);
        Some((as_length(min), as_length(max)))
    }

    fn range_check(&mut self, noun: &str, shape: &'static str, min: Option<f64>, max: Option<f64>) {
        if let (Some(min), Some(max)) = (min, max) {
            if min > max {
                self.domain(
                    Code::Range,
                    &format!("{noun} shape has min greater than max"),
                    Context {
                        shape: Some(shape),
                        ..Context::default()
                    },
                );
            }
        }
    }

    fn string(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        description: Option<Box<[u8]>>,
    ) -> Option<Decl> {
        let min_raw = self.number_field(fields, "min", "string").ok()?;
        let max_raw = self.number_field(fields, "max", "string").ok()?;
        let source = match field(fields, "pattern").map(Node::view) {
            None => None,
            Some(View::Str(text)) => Some(text.into_owned()),
            Some(_) => {
                self.refuse("string pattern must be a string", Some("pattern"), None);
                return None;
            }
        };
        let (min, max) = self.lengths(fields, "string")?;
        let pattern = source.and_then(|source| match Pattern::compile(&source) {
            Ok(pattern) => Some(pattern),
            Err(error) => {
                self.domain(
                    Code::Pattern,
                    &format!("a string shape pattern cannot be used: {}", error.reason()),
                    Context {
                        shape: Some("string"),
                        received: Some(preview_string(&source)),
                        ..Context::default()
                    },
                );
                None
            }
        });
        self.range_check(
            "a string",
            "string",
            min_raw.map(Num::value),
            max_raw.map(Num::value),
        );
        Some(Decl::String {
            min,
            max,
            pattern,
            description,
        })
    }

    fn number(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        description: Option<Box<[u8]>>,
    ) -> Option<Decl> {
        let min = self.number_field(fields, "min", "number").ok()?;
        let max = self.number_field(fields, "max", "number").ok()?;
        let integer = match field(fields, "integer").map(Node::view) {
            None => None,
            Some(View::Bool(b)) => Some(b),
            Some(_) => {
                self.refuse("number integer must be a boolean", Some("integer"), None);
                return None;
            }
        };
        let shape = if integer == Some(true) {
            "integer"
        } else {
            "number"
        };
        for (name, bound) in [("min", min), ("max", max)] {
            if let Some(bound) = bound.filter(|b| !b.value().is_finite()) {
                self.domain(
                    Code::Bound,
                    &format!("a number shape {name} must be finite"),
                    Context {
                        shape: Some(shape),
                        limit: Some(Limit::Text("finite number")),
                        received: Some(number_to_string(bound.value())),
                        ..Context::default()
                    },
                );
            }
        }
        self.range_check("a number", shape, min.map(Num::value), max.map(Num::value));
        if integer == Some(true) {
            let lo = min.map_or(f64::NEG_INFINITY, |m| m.value().ceil());
            let hi = max.map_or(f64::INFINITY, |m| m.value().floor());
            if lo > hi {
                self.domain(
                    Code::Range,
                    "an integer number shape has an empty integer range",
                    Context {
                        shape: Some("integer"),
                        ..Context::default()
                    },
                );
            }
        }
        Some(Decl::Number {
            min,
            max,
            integer,
            description,
        })
    }
}
