//! The coercive fault report (spec §5.4): it mirrors `parse`, is total, and caps every
//! level at [`FAULT_LIMIT`] entries.

use std::ops::ControlFlow;

use super::fault::{Fault, FaultLimit, Reason, Segment};
use super::jsonvalue::is_json_value;
use super::parse::{coerce_boolean, coerce_number, coerce_string, js_sort};
use super::{find, is_member, is_text_member, Compiled, Contract, Tail};
use crate::constants::FAULT_LIMIT;
use crate::json::Num;
use crate::shape::Id;
use crate::stack::deeper;
use crate::text::keys::array_index;
use crate::text::number::{is_integer, number_to_string};
use crate::text::preview::{preview_string, preview_view};
use crate::text::{trim, utf16_len};
use crate::value::{Node, View};

/// An undeclared key of a record: its array index (for ordering), key and value.
type Extra<N> = (Option<u32>, (Box<[u8]>, N));

struct Report<'c> {
    contract: &'c Contract,
    path: Vec<Segment>,
}

impl Report<'_> {
    fn fault(&self, reason: Reason, expected: &'static str) -> Fault {
        let mut fault = Fault::at(reason, self.path.clone());
        fault.expected = Some(expected);
        fault
    }

    fn type_fault(&self, expected: &'static str, view: &View<'_>) -> Vec<Fault> {
        let mut fault = self.fault(Reason::Type, expected);
        fault.received = Some(preview_view(view));
        vec![fault]
    }

    fn constraint(
        &self,
        expected: &'static str,
        constraint: &'static str,
        limit: Option<FaultLimit>,
        received: String,
    ) -> Fault {
        let mut fault = self.fault(Reason::Constraint, expected);
        fault.constraint = Some(constraint);
        fault.limit = limit;
        fault.received = Some(received);
        fault
    }

    fn length_faults(
        &self,
        expected: &'static str,
        len: u64,
        min: Option<u64>,
        max: Option<u64>,
        received: &str,
    ) -> Vec<Fault> {
        let mut faults = Vec::new();
        let limit = |n: u64| {
            Some(FaultLimit::Number(Num::Int(
                i64::try_from(n).unwrap_or(i64::MAX),
            )))
        };
        if let Some(min) = min.filter(|m| len < *m) {
            faults.push(self.constraint(expected, "min", limit(min), received.to_owned()));
        }
        if let Some(max) = max.filter(|m| len > *m) {
            faults.push(self.constraint(expected, "max", limit(max), received.to_owned()));
        }
        faults
    }

    fn explain<N: Node>(&mut self, id: Id, value: &N, depth: u32) -> Vec<Fault> {
        deeper(depth, || self.explain_at(id, value, depth + 1))
    }

    fn explain_at<N: Node>(&mut self, id: Id, value: &N, depth: u32) -> Vec<Fault> {
        let contract = self.contract;
        let kind = contract.kinds[id];
        let view = value.view();
        match &contract.nodes[id] {
            Compiled::String { min, max, pattern } => {
                let Some(text) = coerce_string(&view) else {
                    return self.type_fault(kind, &view);
                };
                let received = preview_string(&text);
                let mut faults =
                    self.length_faults(kind, utf16_len(&text) as u64, *min, *max, &received);
                if let Some(pattern) = pattern.as_ref().filter(|p| !p.is_match(&text)) {
                    let limit = Some(FaultLimit::Text(pattern.source.clone()));
                    faults.push(self.constraint(kind, "pattern", limit, received));
                }
                faults
            }
            Compiled::Number { min, max, integer } => {
                let Some(n) = coerce_number(&view) else {
                    return self.type_fault(kind, &view);
                };
                let received = number_to_string(n);
                let mut faults = Vec::new();
                if *integer && !is_integer(n) {
                    faults.push(self.constraint(kind, "integer", None, received.clone()));
                }
                if let Some(min) = min.filter(|m| n < m.value()) {
                    faults.push(self.constraint(
                        kind,
                        "min",
                        Some(FaultLimit::Number(min)),
                        received.clone(),
                    ));
                }
                if let Some(max) = max.filter(|m| n > m.value()) {
                    faults.push(self.constraint(
                        kind,
                        "max",
                        Some(FaultLimit::Number(max)),
                        received,
                    ));
                }
                faults
            }
            Compiled::Boolean => match coerce_boolean(&view) {
                Some(_) => Vec::new(),
                None => self.type_fault(kind, &view),
            },
            Compiled::Null => match view {
                View::Null => Vec::new(),
                _ => self.type_fault(kind, &view),
            },
            Compiled::Literal(values) => {
                let trimmed_member =
                    matches!(&view, View::Str(text) if is_text_member(values, trim(text)));
                if is_member(values, &view) || trimmed_member {
                    Vec::new()
                } else {
                    self.type_fault(kind, &view)
                }
            }
            Compiled::Json => {
                if is_json_value(value) {
                    Vec::new()
                } else {
                    self.type_fault(kind, &view)
                }
            }
            Compiled::Raw => Vec::new(),
            Compiled::Nullable(inner) => match view {
                View::Null => Vec::new(),
                _ => self.explain(*inner, value, depth),
            },
            Compiled::Optional(inner) => self.explain(*inner, value, depth),
            Compiled::Array { items, min, max } => {
                let len = match (&view, value.len()) {
                    (View::Array, Ok(len)) => len,
                    _ => return self.type_fault(kind, &view),
                };
                let mut faults = Vec::new();
                for index in 0..len {
                    if faults.len() >= FAULT_LIMIT {
                        break;
                    }
                    self.path.push(Segment::Index(index));
                    match value.item(index) {
                        Ok(item) => faults.extend(self.explain(*items, &item, depth)),
                        Err(_) => faults.push(self.fault(Reason::Type, contract.kinds[*items])),
                    }
                    self.path.pop();
                }
                faults.extend(self.length_faults(kind, len as u64, *min, *max, &len.to_string()));
                faults.truncate(FAULT_LIMIT);
                faults
            }
            Compiled::Object { props, tail, .. } => {
                if !matches!(view, View::Object) {
                    return self.type_fault(kind, &view);
                }
                self.explain_object(props, tail, value, &view, depth)
            }
            Compiled::Union { variants, one_of } => {
                if *one_of {
                    let matched = variants
                        .iter()
                        .filter(|v| contract.guard(**v, value, depth))
                        .count();
                    if matched == 1 {
                        return Vec::new();
                    }
                    let mut fault = Fault::at(Reason::OneOf, self.path.clone());
                    fault.count = Some(matched);
                    let mut faults = vec![fault];
                    if matched == 0 {
                        faults.extend(self.closest(variants, value, depth).unwrap_or_default());
                    }
                    faults.truncate(FAULT_LIMIT);
                    faults
                } else {
                    let Some(closest) = self.closest(variants, value, depth) else {
                        return Vec::new();
                    };
                    let mut fault = Fault::at(Reason::Variant, self.path.clone());
                    fault.count = Some(variants.len());
                    let mut faults = vec![fault];
                    faults.extend(closest);
                    faults.truncate(FAULT_LIMIT);
                    faults
                }
            }
        }
    }

    /// The shortest variant report (earliest on ties); `None` when one is empty.
    fn closest<N: Node>(&mut self, variants: &[Id], value: &N, depth: u32) -> Option<Vec<Fault>> {
        let mut best: Option<Vec<Fault>> = None;
        for variant in variants {
            let report = self.explain(*variant, value, depth);
            if report.is_empty() {
                return None;
            }
            if best.as_ref().is_none_or(|b| report.len() < b.len()) {
                best = Some(report);
            }
        }
        best
    }

    fn explain_object<N: Node>(
        &mut self,
        props: &[super::Prop],
        tail: &Tail,
        value: &N,
        view: &View<'_>,
        depth: u32,
    ) -> Vec<Fault> {
        let mut slots: Vec<Option<N>> = vec![None; props.len()];
        let mut extras: Vec<Extra<N>> = Vec::new();
        let read = value.entries(|entry| {
            match find(props, entry.text) {
                Some(index) => slots[index] = Some(entry.value.clone()),
                None => {
                    if matches!(tail, Tail::Shape(_)) {
                        extras.push((
                            array_index(entry.text),
                            (entry.text.into(), entry.value.clone()),
                        ));
                    }
                }
            }
            ControlFlow::Continue(())
        });
        if read.is_err() {
            return self.type_fault("object", view);
        }
        let mut faults = Vec::new();
        for (prop, slot) in props.iter().zip(&slots) {
            if faults.len() >= FAULT_LIMIT {
                break;
            }
            self.path.push(Segment::Key(prop.name.clone()));
            match slot {
                Some(child) => faults.extend(self.explain(prop.shape, child, depth)),
                None if !prop.optional => faults.push(self.fault(Reason::Missing, prop.kind)),
                None => {}
            }
            self.path.pop();
        }
        if let Tail::Shape(shape) = tail {
            js_sort(&mut extras);
            for (_, (key, child)) in &extras {
                if faults.len() >= FAULT_LIMIT {
                    break;
                }
                self.path.push(Segment::Key(key.clone()));
                faults.extend(self.explain(*shape, child, depth));
                self.path.pop();
            }
        }
        faults.truncate(FAULT_LIMIT);
        faults
    }
}

impl Contract {
    /// The faults of `value` under the coercive reading; empty exactly when `parse` succeeds.
    pub fn explain<N: Node>(&self, value: &N, prefix: Vec<Segment>) -> Vec<Fault> {
        let mut report = Report {
            contract: self,
            path: prefix,
        };
        report.explain(0, value, 0)
    }
}
