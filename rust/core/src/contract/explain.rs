//! The coercive fault report (spec §5.4): it mirrors `parse`, is total, and caps every
//! level at [`FAULT_LIMIT`] entries.

use std::ops::ControlFlow;
use std::sync::Arc;

use super::fault::{Fault, FaultLimit, Reason, Received, Segment};
use super::jsonvalue::is_json_value;
use super::parse::{coerce_boolean, coerce_number, coerce_string, js_sort};
use super::{find_near, Compiled, Contract, Slots, Tail};
use crate::constants::FAULT_LIMIT;
use crate::json::Num;
use crate::shape::Id;
use crate::stack::deeper;
use crate::text::keys::array_index;
use crate::text::number::is_integer;
use crate::text::preview::preview_string;
use crate::text::{char_len, trim};
use crate::value::{Node, View};

/// An undeclared key of a record: its array index (for ordering), key and value.
type Extra<N> = (Option<u32>, (Arc<[u8]>, N));

/// A path segment while walking: property names are borrowed from the contract, so only a
/// fault pays for an owned path.
enum Step<'c> {
    Name(&'c Arc<[u8]>),
    Index(usize),
    Owned(Segment),
}

struct Report<'c> {
    contract: &'c Contract,
    path: Vec<Step<'c>>,
}

impl<'c> Report<'c> {
    fn here(&self) -> Vec<Segment> {
        self.path
            .iter()
            .map(|step| match step {
                Step::Name(name) => Segment::Key(Arc::clone(name)),
                Step::Index(index) => Segment::Index(*index),
                Step::Owned(segment) => segment.clone(),
            })
            .collect()
    }

    fn fault(&self, reason: Reason, expected: &'static str) -> Fault {
        let mut fault = Fault::at(reason, self.here());
        fault.expected = Some(expected);
        fault
    }

    fn type_fault(&self, out: &mut Vec<Fault>, expected: &'static str, view: &View<'_>) {
        let mut fault = self.fault(Reason::Type, expected);
        fault.received = Some(Received::of(view));
        out.push(fault);
    }

    fn constraint(
        &self,
        expected: &'static str,
        constraint: &'static str,
        limit: Option<FaultLimit>,
        received: Received,
    ) -> Fault {
        let mut fault = self.fault(Reason::Constraint, expected);
        fault.constraint = Some(constraint);
        fault.limit = limit;
        fault.received = Some(received);
        fault
    }

    fn length_faults(
        &self,
        out: &mut Vec<Fault>,
        expected: &'static str,
        (len, min, max): (u64, Option<u64>, Option<u64>),
        received: impl Fn() -> Received,
    ) {
        let limit = |n: u64| {
            Some(FaultLimit::Number(Num::Int(
                i64::try_from(n).unwrap_or(i64::MAX),
            )))
        };
        if let Some(min) = min.filter(|m| len < *m) {
            out.push(self.constraint(expected, "min", limit(min), received()));
        }
        if let Some(max) = max.filter(|m| len > *m) {
            out.push(self.constraint(expected, "max", limit(max), received()));
        }
    }

    /// Appends this node's report (capped at [`FAULT_LIMIT`]) to `out`.
    fn explain<N: Node>(&mut self, id: Id, value: &N, depth: u32, out: &mut Vec<Fault>) {
        deeper(depth, || self.explain_at(id, value, depth + 1, out));
    }

    fn explain_at<N: Node>(&mut self, id: Id, value: &N, depth: u32, out: &mut Vec<Fault>) {
        let contract: &'c Contract = self.contract;
        let kind = contract.kinds[id];
        let view = value.view();
        match &contract.nodes[id] {
            Compiled::String {
                min: None,
                max: None,
                pattern: None,
            } => {
                // `coerce_string` would write a number out only for it to be dropped.
                if !matches!(view, View::Str(_)) && view.finite().is_none() {
                    self.type_fault(out, kind, &view);
                }
            }
            Compiled::String { min, max, pattern } => {
                let Some(text) = coerce_string(&view) else {
                    return self.type_fault(out, kind, &view);
                };
                let received = || Received::Text(preview_string(&text));
                let units = match (min, max, &view) {
                    (None, None, _) => 0,
                    (_, _, View::Str(_)) => value.char_len(),
                    _ => char_len(&text),
                };
                self.length_faults(out, kind, (units as u64, *min, *max), received);
                if let Some(pattern) = pattern.as_ref().filter(|p| !p.is_match(&text)) {
                    let limit = Some(FaultLimit::Text(pattern.source.clone()));
                    out.push(self.constraint(kind, "pattern", limit, received()));
                }
            }
            Compiled::Number { min, max, integer } => {
                let Some(n) = coerce_number(&view) else {
                    return self.type_fault(out, kind, &view);
                };
                let received = || Received::Number(n);
                if *integer && !is_integer(n) {
                    out.push(self.constraint(kind, "integer", None, received()));
                }
                if let Some(min) = min.filter(|m| n < m.value()) {
                    let limit = Some(FaultLimit::Number(min));
                    out.push(self.constraint(kind, "min", limit, received()));
                }
                if let Some(max) = max.filter(|m| n > m.value()) {
                    let limit = Some(FaultLimit::Number(max));
                    out.push(self.constraint(kind, "max", limit, received()));
                }
            }
            Compiled::Boolean => {
                if coerce_boolean(&view).is_none() {
                    self.type_fault(out, kind, &view);
                }
            }
            Compiled::Null => {
                if !matches!(view, View::Null) {
                    self.type_fault(out, kind, &view);
                }
            }
            Compiled::Literal(values) => {
                let trimmed_member =
                    || matches!(&view, View::Str(text) if values.contains_text(trim(text)));
                if !values.contains(&view) && !trimmed_member() {
                    self.type_fault(out, kind, &view);
                }
            }
            Compiled::Json => {
                if !is_json_value(value) {
                    self.type_fault(out, kind, &view);
                }
            }
            Compiled::Raw => {}
            Compiled::Nullable(inner) => {
                if !matches!(view, View::Null) {
                    self.explain(*inner, value, depth, out);
                }
            }
            Compiled::Optional(inner) => self.explain(*inner, value, depth, out),
            Compiled::Array { items, min, max } => {
                let len = match (&view, value.len()) {
                    (View::Array, Ok(len)) => len,
                    _ => return self.type_fault(out, kind, &view),
                };
                let start = out.len();
                for index in 0..len {
                    if out.len() - start >= FAULT_LIMIT {
                        break;
                    }
                    let item = value.item(index);
                    if item
                        .as_ref()
                        .is_ok_and(|item| contract.leaf_guard(*items, item) == Some(true))
                    {
                        continue;
                    }
                    self.path.push(Step::Index(index));
                    match item {
                        Ok(item) => self.explain(*items, &item, depth, out),
                        Err(_) => out.push(self.fault(Reason::Type, contract.kinds[*items])),
                    }
                    self.path.pop();
                }
                self.length_faults(out, kind, (len as u64, *min, *max), || {
                    Received::Number(len as f64)
                });
                out.truncate(start + FAULT_LIMIT);
            }
            Compiled::Object {
                props, index, tail, ..
            } => {
                if !matches!(view, View::Object) {
                    return self.type_fault(out, kind, &view);
                }
                self.explain_object((props, index), tail, value, &view, depth, out);
            }
            Compiled::Union { variants, one_of } => {
                let start = out.len();
                if *one_of {
                    let matched = variants
                        .iter()
                        .filter(|v| contract.guard(**v, value, depth))
                        .count();
                    if matched == 1 {
                        return;
                    }
                    let mut fault = Fault::at(Reason::OneOf, self.here());
                    fault.count = Some(matched);
                    out.push(fault);
                    if matched == 0 {
                        out.extend(self.closest(variants, value, depth).unwrap_or_default());
                    }
                } else {
                    let Some(closest) = self.closest(variants, value, depth) else {
                        return;
                    };
                    let mut fault = Fault::at(Reason::Variant, self.here());
                    fault.count = Some(variants.len());
                    out.push(fault);
                    out.extend(closest);
                }
                out.truncate(start + FAULT_LIMIT);
            }
        }
    }

    /// The shortest variant report (earliest on ties); `None` when one is empty.
    fn closest<N: Node>(&mut self, variants: &[Id], value: &N, depth: u32) -> Option<Vec<Fault>> {
        let mut best: Option<Vec<Fault>> = None;
        for variant in variants {
            let mut report = Vec::new();
            self.explain(*variant, value, depth, &mut report);
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
        (props, index): (&'c [super::Prop], &super::keys::KeyIndex),
        tail: &Tail,
        value: &N,
        view: &View<'_>,
        depth: u32,
        out: &mut Vec<Fault>,
    ) {
        let mut slots = Slots::new(props.len());
        let slots_mut = slots.as_mut();
        let mut extras: Vec<Extra<N>> = Vec::new();
        let contract = self.contract;
        // A value a leaf shape accepts as is has no faults (the coercive reading accepts what
        // the strict one does): such an extra is not kept, such a property or item not
        // explained. A container is explained without a guard first: on a path to a fault,
        // each level's guard would walk it again.
        let leaf_tail = match tail {
            Tail::Shape(shape) => contract.is_leaf(*shape).then_some(*shape),
            _ => None,
        };
        let mut hint = 0;
        let read = value.entries(|entry| {
            match find_near(props, index, &entry, hint) {
                Some(index) => {
                    hint = index + 1;
                    let clean = contract.leaf_guard(props[index].shape, entry.value) == Some(true);
                    slots_mut[index] = Some((!clean).then(|| entry.value.clone()));
                }
                None => {
                    let clean =
                        leaf_tail.is_some_and(|shape| contract.guard(shape, entry.value, depth));
                    if matches!(tail, Tail::Shape(_)) && !clean {
                        let text = entry.text();
                        extras.push((array_index(&text), (Arc::from(&*text), entry.value.clone())));
                    }
                }
            }
            ControlFlow::Continue(())
        });
        if read.is_err() {
            return self.type_fault(out, "object", view);
        }
        let start = out.len();
        for (prop, slot) in props.iter().zip(slots.as_mut().iter()) {
            if out.len() - start >= FAULT_LIMIT {
                break;
            }
            match slot {
                Some(None) => {}
                Some(Some(child)) => {
                    self.path.push(Step::Name(&prop.name));
                    self.explain(prop.shape, child, depth, out);
                    self.path.pop();
                }
                None if !prop.optional => {
                    self.path.push(Step::Name(&prop.name));
                    out.push(self.fault(Reason::Missing, prop.kind));
                    self.path.pop();
                }
                None => {}
            }
        }
        if let Tail::Shape(shape) = tail {
            js_sort(&mut extras);
            for (_, (key, child)) in &extras {
                if out.len() - start >= FAULT_LIMIT {
                    break;
                }
                self.path.push(Step::Owned(Segment::Key(key.clone())));
                self.explain(*shape, child, depth, out);
                self.path.pop();
            }
        }
        out.truncate(start + FAULT_LIMIT);
    }
}

impl Contract {
    /// The faults of `value` under the coercive reading; empty exactly when `parse` succeeds.
    pub fn explain<N: Node>(&self, value: &N, prefix: Vec<Segment>) -> Vec<Fault> {
        let mut path = Vec::with_capacity(prefix.len() + 8);
        path.extend(prefix.into_iter().map(Step::Owned));
        let mut report = Report {
            contract: self,
            path,
        };
        let mut out = Vec::with_capacity(4);
        report.explain(0, value, 0, &mut out);
        out
    }
}
