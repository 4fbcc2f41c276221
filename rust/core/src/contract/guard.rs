//! The strict guard (spec §5.2): total, never raises.

use std::ops::ControlFlow;

use super::jsonvalue::is_json_value;
use super::{find, is_member, Compiled, Contract, Tail};
use crate::shape::Id;
use crate::stack::deeper;
use crate::text::number::is_integer;
use crate::value::{Node, View};

impl Contract {
    /// Whether `value` satisfies the contract exactly, with no coercion.
    pub fn is_valid<N: Node>(&self, value: &N) -> bool {
        self.guard(0, value, 0)
    }

    pub(super) fn guard<N: Node>(&self, id: Id, value: &N, depth: u32) -> bool {
        deeper(depth, || self.guard_node(id, value, depth + 1))
    }

    fn guard_node<N: Node>(&self, id: Id, value: &N, depth: u32) -> bool {
        match &self.nodes[id] {
            Compiled::String { min, max, pattern } => match value.view() {
                View::Str(text) => {
                    self.string_fits(*min, *max, pattern.as_ref(), value.utf16_len(), &text)
                }
                _ => false,
            },
            Compiled::Number { min, max, integer } => value
                .view()
                .finite()
                .is_some_and(|n| number_fits(n, *integer, *min, *max)),
            Compiled::Boolean => matches!(value.view(), View::Bool(_)),
            Compiled::Null => matches!(value.view(), View::Null),
            Compiled::Literal(values) => is_member(values, &value.view()),
            Compiled::Array { items, min, max } => {
                if !matches!(value.view(), View::Array) {
                    return false;
                }
                let Ok(len) = value.len() else { return false };
                if min.is_some_and(|m| (len as u64) < m) || max.is_some_and(|m| (len as u64) > m) {
                    return false;
                }
                (0..len).all(|i| {
                    value
                        .item(i)
                        .is_ok_and(|item| self.guard(*items, &item, depth))
                })
            }
            Compiled::Object {
                props,
                required,
                tail,
            } => {
                if !matches!(value.view(), View::Object) {
                    return false;
                }
                let mut ok = true;
                let mut seen = 0;
                let read = value.entries(|entry| {
                    let pass = match find(props, entry.text) {
                        Some(index) => {
                            let prop = &props[index];
                            seen += usize::from(!prop.optional);
                            self.guard(prop.shape, entry.value, depth)
                        }
                        None => match tail {
                            Tail::Closed => false,
                            Tail::Open => true,
                            Tail::Shape(shape) => self.guard(*shape, entry.value, depth),
                        },
                    };
                    if pass {
                        ControlFlow::Continue(())
                    } else {
                        ok = false;
                        ControlFlow::Break(())
                    }
                });
                read.is_ok() && ok && seen == *required
            }
            Compiled::Union { variants, one_of } => {
                if *one_of {
                    variants
                        .iter()
                        .filter(|v| self.guard(**v, value, depth))
                        .take(2)
                        .count()
                        == 1
                } else {
                    variants.iter().any(|v| self.guard(*v, value, depth))
                }
            }
            Compiled::Nullable(inner) => {
                matches!(value.view(), View::Null) || self.guard(*inner, value, depth)
            }
            Compiled::Optional(inner) => self.guard(*inner, value, depth),
            Compiled::Json => is_json_value(value),
            Compiled::Raw => true,
        }
    }

    pub(super) fn string_fits(
        &self,
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<&crate::pattern::Pattern>,
        units: usize,
        text: &[u8],
    ) -> bool {
        let units = units as u64;
        !(min.is_some_and(|m| units < m)
            || max.is_some_and(|m| units > m)
            || pattern.is_some_and(|p| !p.is_match(text)))
    }
}

/// Whether a finite number satisfies integer and bound refinements.
pub(super) fn number_fits(
    n: f64,
    integer: bool,
    min: Option<crate::json::Num>,
    max: Option<crate::json::Num>,
) -> bool {
    !(integer && !is_integer(n)
        || min.is_some_and(|m| n < m.value())
        || max.is_some_and(|m| n > m.value()))
}
