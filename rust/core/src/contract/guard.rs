//! The strict guard (spec §5.2): total, never raises.

use std::ops::ControlFlow;

use super::jsonvalue::is_json_value;
use super::{find_near, Compiled, Contract, Tail};
use crate::shape::Id;
use crate::stack::deeper;
use crate::text::number::is_integer;
use crate::value::{Kind, Node, View};

impl Contract {
    /// Whether `value` satisfies the contract exactly, with no coercion.
    pub fn is_valid<N: Node>(&self, value: &N) -> bool {
        self.guard(0, value, 0)
    }

    pub(super) fn guard<N: Node>(&self, id: Id, value: &N, depth: u32) -> bool {
        deeper(depth, || self.guard_node(id, value, depth + 1))
    }

    /// The strict answer for a leaf shape (string, number, boolean, null, literal, or a JSON
    /// scalar), which needs no recursion; `None` for other shapes.
    #[inline(always)]
    pub(super) fn leaf_guard<N: Node>(&self, id: Id, value: &N) -> Option<bool> {
        Some(match &self.nodes[id] {
            Compiled::String { min, max, pattern } => {
                if value.kind() != Kind::Str {
                    return Some(false);
                }
                if (min.is_some() || max.is_some()) && !length_fits(value.char_len(), *min, *max) {
                    return Some(false);
                }
                match pattern {
                    None => true,
                    Some(pattern) => {
                        matches!(value.view(), View::Str(text) if pattern.is_match(&text))
                    }
                }
            }
            Compiled::Number { min, max, integer } => value
                .finite()
                .is_some_and(|n| number_fits(n, *integer, *min, *max)),
            Compiled::Boolean => value.kind() == Kind::Bool,
            Compiled::Null => value.kind() == Kind::Null,
            Compiled::Literal(values) => {
                values.is_bound(value.identity()) || values.contains(&value.view())
            }
            // A JSON scalar as `is_json_value` reads it; containers take the walk.
            Compiled::Json => match value.kind() {
                Kind::Null | Kind::Bool | Kind::Str => true,
                Kind::Number => value.finite().is_some(),
                Kind::Other => false,
                Kind::Array | Kind::Object => return None,
            },
            _ => return None,
        })
    }

    /// [`Contract::guard`] of a child, with leaves answered inline.
    #[inline(always)]
    pub(super) fn guard_child<N: Node>(&self, id: Id, value: &N, depth: u32) -> bool {
        match self.leaf_guard(id, value) {
            Some(answer) => answer,
            None => self.guard(id, value, depth),
        }
    }

    fn guard_node<N: Node>(&self, id: Id, value: &N, depth: u32) -> bool {
        if let Some(answer) = self.leaf_guard(id, value) {
            return answer;
        }
        match &self.nodes[id] {
            Compiled::String { .. }
            | Compiled::Number { .. }
            | Compiled::Boolean
            | Compiled::Null
            | Compiled::Literal(_) => false,
            Compiled::Array { items, min, max } => {
                if value.kind() != Kind::Array {
                    return false;
                }
                let Ok(len) = value.len() else { return false };
                if min.is_some_and(|m| (len as u64) < m) || max.is_some_and(|m| (len as u64) > m) {
                    return false;
                }
                (0..len).all(|i| {
                    value
                        .item(i)
                        .is_ok_and(|item| self.guard_child(*items, &item, depth))
                })
            }
            Compiled::Object {
                props,
                index,
                required,
                tail,
            } => {
                if value.kind() != Kind::Object {
                    return false;
                }
                if props.is_empty() {
                    return self.guard_tail(tail, value, depth);
                }
                let mut ok = true;
                let mut seen = 0;
                let mut hint = 0;
                let read = value.entries(|entry| {
                    let pass = match find_near(props, index, &entry, hint) {
                        Some(index) => {
                            hint = index + 1;
                            let prop = &props[index];
                            seen += usize::from(!prop.optional);
                            self.guard_child(prop.shape, entry.value, depth)
                        }
                        None => match tail {
                            Tail::Closed => false,
                            Tail::Open => true,
                            Tail::Shape(shape) => self.guard_child(*shape, entry.value, depth),
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
                value.kind() == Kind::Null || self.guard(*inner, value, depth)
            }
            Compiled::Optional(inner) => self.guard(*inner, value, depth),
            Compiled::Json => is_json_value(value),
            Compiled::Raw => true,
        }
    }
}

impl Contract {
    /// A record with no declared properties: every key is an extra, and only values matter.
    fn guard_tail<N: Node>(&self, tail: &Tail, value: &N, depth: u32) -> bool {
        let mut ok = true;
        let read = value.values(|item| {
            ok = match tail {
                Tail::Closed => false,
                Tail::Open => true,
                Tail::Shape(shape) => self.guard_child(*shape, item, depth),
            };
            if ok {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        });
        read.is_ok() && ok
    }
}

/// Whether a UTF-16 length is within optional bounds.
pub(super) fn length_fits(units: usize, min: Option<u64>, max: Option<u64>) -> bool {
    let units = units as u64;
    !(min.is_some_and(|m| units < m) || max.is_some_and(|m| units > m))
}

/// Whether a string satisfies length bounds and a pattern.
pub(super) fn string_fits(
    min: Option<u64>,
    max: Option<u64>,
    pattern: Option<&crate::pattern::Pattern>,
    units: usize,
    text: &[u8],
) -> bool {
    length_fits(units, min, max) && pattern.is_none_or(|p| p.is_match(text))
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
