//! The gate's observation of container nodes: literal members, object properties and union
//! variants, each a list of child slots.

use super::fields::{field, fields_of, literal_of};
use super::gate::{Child, Gate};
use super::{Additional, Decl, Lit, Mode};
use crate::errors::{Code, Context};
use crate::text::number::number_to_string;
use crate::value::{Node, View};

impl<N: Node> Gate<N> {
    fn list(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        name: &'static str,
        message: &str,
    ) -> Option<Vec<N>> {
        let items = field(fields, name).and_then(|list| {
            if !matches!(list.view(), View::Array) {
                return None;
            }
            let len = list.len().ok()?;
            (0..len)
                .map(|i| list.item(i).ok())
                .collect::<Option<Vec<N>>>()
        });
        if items.is_none() {
            self.refuse(message, Some(name), None);
        }
        items
    }

    pub(super) fn literal(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        description: Option<Box<[u8]>>,
    ) -> Option<Decl> {
        let entries = self.list(fields, "values", "values must be a finite literal array")?;
        if entries.is_empty() {
            self.domain(
                Code::Empty,
                "a literal shape needs at least one value",
                Context {
                    shape: Some("literal"),
                    ..Context::default()
                },
            );
        }
        let mut values: Vec<Lit> = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let key = index.to_string();
            let Some(value) = literal_of(entry) else {
                self.refuse(
                    "every literal value must be a string, number, or boolean",
                    Some("values"),
                    Some(key.as_bytes()),
                );
                return None;
            };
            if values.iter().any(|seen| seen.same(&value)) {
                self.refuse(
                    "literal values must be unique",
                    Some("values"),
                    Some(key.as_bytes()),
                );
                return None;
            }
            if let Lit::Num(n) = value {
                if !n.value().is_finite() {
                    self.domain(
                        Code::Literal,
                        "a literal shape may not contain non-finite number values",
                        Context {
                            shape: Some("literal"),
                            received: Some(number_to_string(n.value())),
                            ..Context::default()
                        },
                    );
                }
            }
            values.push(value);
        }
        Some(Decl::Literal {
            values,
            description,
        })
    }

    pub(super) fn object(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        description: Option<Box<[u8]>>,
        children: &mut Vec<Child<N>>,
    ) -> Option<Decl> {
        let Some(properties) = field(fields, "properties").and_then(fields_of) else {
            self.refuse(
                "properties must be a plain property map",
                Some("properties"),
                None,
            );
            return None;
        };
        let mut names = Vec::with_capacity(properties.len());
        for (position, (name, value)) in properties.into_iter().enumerate() {
            children.push(Child {
                node: Some(value),
                first: "properties",
                second: Some(name.clone()),
                optional: true,
            });
            names.push((name, position));
        }
        let additional = match field(fields, "additionalProperties") {
            None => Additional::Absent,
            Some(extra) => match extra.view() {
                View::Bool(b) => Additional::Bool(b),
                _ => {
                    children.push(Child {
                        node: Some(extra.clone()),
                        first: "additionalProperties",
                        second: None,
                        optional: false,
                    });
                    Additional::Shape(children.len() - 1)
                }
            },
        };
        Some(Decl::Object {
            properties: names,
            additional,
            description,
        })
    }

    pub(super) fn union(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        description: Option<Box<[u8]>>,
        children: &mut Vec<Child<N>>,
    ) -> Option<Decl> {
        let mode = match field(fields, "mode").map(Node::view) {
            None => None,
            Some(View::Str(text)) if &*text == b"anyOf" => Some(Mode::AnyOf),
            Some(View::Str(text)) if &*text == b"oneOf" => Some(Mode::OneOf),
            Some(_) => {
                self.refuse("union mode must be anyOf or oneOf", Some("mode"), None);
                return None;
            }
        };
        let variants = self.list(fields, "variants", "variants must be a finite array")?;
        if variants.is_empty() {
            self.domain(
                Code::Empty,
                "a union shape needs at least one variant",
                Context {
                    shape: Some("union"),
                    ..Context::default()
                },
            );
        }
        let ids = (0..variants.len()).collect();
        for (index, variant) in variants.into_iter().enumerate() {
            children.push(Child {
                node: Some(variant),
                first: "variants",
                second: Some(index.to_string().into_bytes().into_boxed_slice()),
                optional: false,
            });
        }
        Some(Decl::Union {
            variants: ids,
            mode,
            description,
        })
    }
}
