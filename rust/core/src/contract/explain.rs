//! The coercive fault report (spec §5.4): it mirrors `parse`, is total, and caps every
//! level at [`FAULT_LIMIT`] entries.

use std::ops::ControlFlow;
use std::sync::Arc;

use super::fault::{Fault, FaultLimit, Path, Reason, Received, Segment};
use super::jsonvalue::is_json_value;
use super::parse::{coerce_boolean, coerce_number, coerce_string, js_sort};
use super::{find_near, Compiled, Contract, Extras, Slots, Tail};
use crate::constants::FAULT_LIMIT;
use crate::json::Num;
use crate::shape::Id;
use crate::stack::deeper;
use crate::text::keys::array_index;
use crate::text::number::is_integer;
use crate::text::preview::preview_received;
use crate::text::{char_len, trim};
use crate::value::{Node, View};

/// An undeclared key of a record: its array index (for ordering), key and value.
type Extra<N> = (Option<u32>, (Arc<[u8]>, N));

/// A path segment while walking, borrowed (a declared name from the contract, an undeclared
/// key from the walk), so that only a fault pays for an owned path.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a Arc<[u8]>),
    Index(usize),
}

/// The path below the prefix to the node being explained: links on the walk's own stack, from
/// the node up, so that going down a level allocates nothing.
struct Link<'a> {
    step: Step<'a>,
    up: At<'a>,
}

type At<'a> = Option<&'a Link<'a>>;

/// `at` one step further down.
fn down<'a>(step: Step<'a>, up: At<'a>) -> Link<'a> {
    Link { step, up }
}

struct Report<'c> {
    contract: &'c Contract,
    prefix: Vec<Segment>,
    /// Every path on the heap, for the law that holds the inline paths to them.
    long_paths: bool,
}

impl<'c> Report<'c> {
    fn here(&self, at: At<'_>) -> Path {
        let mut depth = 0;
        let mut link = at;
        while let Some(Link { up, .. }) = link {
            depth += 1;
            link = *up;
        }
        let prefix = self.prefix.len();
        Path::build(prefix + depth, self.long_paths, |path| {
            path[..prefix].clone_from_slice(&self.prefix);
            // Written from the node up, so from the end.
            let mut link = at;
            let mut end = path.len();
            while let Some(Link { step, up }) = link {
                end -= 1;
                path[end] = match step {
                    Step::Key(key) => Segment::Key(Arc::clone(key)),
                    Step::Index(index) => Segment::Index(*index),
                };
                link = *up;
            }
        })
    }

    fn fault(&self, reason: Reason, expected: &'static str, at: At<'_>) -> Fault {
        let mut fault = Fault::at(reason, self.here(at));
        fault.expected = Some(expected);
        fault
    }

    /// Appends a fault written in place: a fault is too large to be moved without a copy.
    #[inline(always)]
    fn push(
        &self,
        out: &mut Vec<Fault>,
        (reason, expected, constraint): (Reason, &'static str, Option<&'static str>),
        limit: Option<FaultLimit>,
        received: Received,
        at: At<'_>,
    ) {
        out.reserve(1);
        let slot = &mut out.spare_capacity_mut()[0];
        slot.write(Fault {
            reason,
            path: self.here(at),
            expected: Some(expected),
            constraint,
            limit,
            received: Some(received),
            count: None,
        });
        // SAFETY: the slot past the length was written just above.
        unsafe { out.set_len(out.len() + 1) };
    }

    fn type_fault(
        &self,
        out: &mut Vec<Fault>,
        expected: &'static str,
        view: &View<'_>,
        at: At<'_>,
    ) {
        let received = Received::of(view);
        self.push(out, (Reason::Type, expected, None), None, received, at);
    }

    fn constraint(
        &self,
        out: &mut Vec<Fault>,
        (expected, constraint): (&'static str, &'static str),
        limit: Option<FaultLimit>,
        received: Received,
        at: At<'_>,
    ) {
        let kinds = (Reason::Constraint, expected, Some(constraint));
        self.push(out, kinds, limit, received, at);
    }

    fn length_faults(
        &self,
        out: &mut Vec<Fault>,
        expected: &'static str,
        (len, min, max): (u64, Option<u64>, Option<u64>),
        received: impl Fn() -> Received,
        at: At<'_>,
    ) {
        let limit = |n: u64| {
            Some(FaultLimit::Number(Num::Int(
                i64::try_from(n).unwrap_or(i64::MAX),
            )))
        };
        if let Some(min) = min.filter(|m| len < *m) {
            self.constraint(out, (expected, "min"), limit(min), received(), at);
        }
        if let Some(max) = max.filter(|m| len > *m) {
            self.constraint(out, (expected, "max"), limit(max), received(), at);
        }
    }

    /// Appends this node's report (capped at [`FAULT_LIMIT`]) to `out`.
    fn explain<N: Node>(&self, id: Id, value: &N, depth: u32, out: &mut Vec<Fault>, at: At<'_>) {
        deeper(depth, || self.explain_at(id, value, depth + 1, out, at));
    }

    fn explain_at<N: Node>(&self, id: Id, value: &N, depth: u32, out: &mut Vec<Fault>, at: At<'_>) {
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
                    self.type_fault(out, kind, &view, at);
                }
            }
            Compiled::String { min, max, pattern } => {
                let Some(text) = coerce_string(&view) else {
                    return self.type_fault(out, kind, &view, at);
                };
                let received = || preview_received(&text);
                let units = match (min, max, &view) {
                    (None, None, _) => 0,
                    (_, _, View::Str(_)) => value.char_len(),
                    _ => char_len(&text),
                };
                self.length_faults(out, kind, (units as u64, *min, *max), received, at);
                if let Some(pattern) = pattern.as_ref().filter(|p| !p.is_match(&text)) {
                    let limit = Some(FaultLimit::Text(pattern.source.clone()));
                    self.constraint(out, (kind, "pattern"), limit, received(), at);
                }
            }
            Compiled::Number { min, max, integer } => {
                let Some(n) = coerce_number(&view) else {
                    return self.type_fault(out, kind, &view, at);
                };
                let received = || Received::Number(n);
                if *integer && !is_integer(n) {
                    self.constraint(out, (kind, "integer"), None, received(), at);
                }
                if let Some(min) = min.filter(|m| n < m.value()) {
                    let limit = Some(FaultLimit::Number(min));
                    self.constraint(out, (kind, "min"), limit, received(), at);
                }
                if let Some(max) = max.filter(|m| n > m.value()) {
                    let limit = Some(FaultLimit::Number(max));
                    self.constraint(out, (kind, "max"), limit, received(), at);
                }
            }
            Compiled::Boolean => {
                if coerce_boolean(&view).is_none() {
                    self.type_fault(out, kind, &view, at);
                }
            }
            Compiled::Null => {
                if !matches!(view, View::Null) {
                    self.type_fault(out, kind, &view, at);
                }
            }
            Compiled::Literal(values) => {
                let member = match &view {
                    View::Str(text) => {
                        let trimmed = trim(text);
                        values.contains_text(text)
                            || trimmed.len() != text.len() && values.contains_text(trimmed)
                    }
                    _ => values.contains(&view),
                };
                if !member {
                    self.type_fault(out, kind, &view, at);
                }
            }
            Compiled::Json => {
                if !is_json_value(value) {
                    self.type_fault(out, kind, &view, at);
                }
            }
            Compiled::Raw => {}
            Compiled::Nullable(inner) => {
                if !matches!(view, View::Null) {
                    self.explain(*inner, value, depth, out, at);
                }
            }
            Compiled::Optional(inner) => self.explain(*inner, value, depth, out, at),
            Compiled::Array { items, min, max } => {
                let len = match (&view, value.len()) {
                    (View::Array, Ok(len)) => len,
                    _ => return self.type_fault(out, kind, &view, at),
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
                    let at = Some(&down(Step::Index(index), at));
                    match item {
                        Ok(item) => self.explain(*items, &item, depth, out, at),
                        Err(_) => out.push(self.fault(Reason::Type, contract.kinds[*items], at)),
                    }
                }
                let received = || Received::Number(len as f64);
                self.length_faults(out, kind, (len as u64, *min, *max), received, at);
                out.truncate(start + FAULT_LIMIT);
            }
            Compiled::Object {
                props, index, tail, ..
            } => {
                if !matches!(view, View::Object) {
                    return self.type_fault(out, kind, &view, at);
                }
                self.explain_object((props, index), tail, value, (&view, depth), out, at);
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
                    let mut fault = Fault::at(Reason::OneOf, self.here(at));
                    fault.count = Some(matched);
                    out.push(fault);
                    if matched == 0 {
                        out.extend(self.closest(variants, value, depth, at).unwrap_or_default());
                    }
                } else {
                    let Some(closest) = self.closest(variants, value, depth, at) else {
                        return;
                    };
                    let mut fault = Fault::at(Reason::Variant, self.here(at));
                    fault.count = Some(variants.len());
                    out.push(fault);
                    out.extend(closest);
                }
                out.truncate(start + FAULT_LIMIT);
            }
        }
    }

    /// The shortest variant report (earliest on ties); `None` when one is empty.
    fn closest<N: Node>(
        &self,
        variants: &[Id],
        value: &N,
        depth: u32,
        at: At<'_>,
    ) -> Option<Vec<Fault>> {
        let mut best: Option<Vec<Fault>> = None;
        for variant in variants {
            let mut report = Vec::new();
            self.explain(*variant, value, depth, &mut report, at);
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
        &self,
        (props, index): (&'c [super::Prop], &super::keys::KeyIndex),
        tail: &Tail,
        value: &N,
        (view, depth): (&View<'_>, u32),
        out: &mut Vec<Fault>,
        at: At<'_>,
    ) {
        let mut slots = Slots::new(props.len());
        let slots_mut = slots.as_mut();
        let mut extras: Extras<Extra<N>> = Extras::new();
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
                    let clean = leaf_tail
                        .is_some_and(|shape| contract.guard_child(shape, entry.value, depth));
                    if matches!(tail, Tail::Shape(_)) && !clean {
                        let text = entry.text();
                        extras.push((array_index(&text), (Arc::from(&*text), entry.value.clone())));
                    }
                }
            }
            ControlFlow::Continue(())
        });
        if read.is_err() {
            return self.type_fault(out, "object", view, at);
        }
        let start = out.len();
        for (prop, slot) in props.iter().zip(slots.as_mut().iter()) {
            if out.len() - start >= FAULT_LIMIT {
                break;
            }
            match slot {
                Some(None) => {}
                Some(Some(child)) => {
                    let at = Some(&down(Step::Key(&prop.name), at));
                    self.explain(prop.shape, child, depth, out, at);
                }
                None if !prop.optional => {
                    let at = Some(&down(Step::Key(&prop.name), at));
                    out.push(self.fault(Reason::Missing, prop.kind, at));
                }
                None => {}
            }
        }
        if let Tail::Shape(shape) = tail {
            js_sort(extras.as_mut_slice());
            for (_, (key, child)) in extras.as_mut_slice().iter() {
                if out.len() - start >= FAULT_LIMIT {
                    break;
                }
                let at = Some(&down(Step::Key(key), at));
                self.explain(*shape, child, depth, out, at);
            }
        }
        out.truncate(start + FAULT_LIMIT);
    }
}

impl Contract {
    /// The faults of `value` under the coercive reading; empty exactly when `parse` succeeds.
    pub fn explain<N: Node>(&self, value: &N, prefix: Vec<Segment>) -> Vec<Fault> {
        self.report(value, prefix, false)
    }

    fn report<N: Node>(&self, value: &N, prefix: Vec<Segment>, long_paths: bool) -> Vec<Fault> {
        let report = Report {
            contract: self,
            prefix,
            long_paths,
        };
        let mut out = Vec::with_capacity(4);
        report.explain(0, value, 0, &mut out, None);
        out
    }

    /// [`Contract::explain`] with every fault path on the heap.
    #[cfg(test)]
    pub(crate) fn explain_long_paths<N: Node>(
        &self,
        value: &N,
        prefix: Vec<Segment>,
    ) -> Vec<Fault> {
        self.report(value, prefix, true)
    }
}
