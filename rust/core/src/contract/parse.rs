//! The coercing parser (spec §5.3). Output is written through a [`Sink`], which reuses an
//! exactly valid leaf and builds fresh containers: no JSON container of the input is ever
//! handed back, so what a caller reads from the output is what was checked. The one exception
//! is a value that is not JSON data where nothing checks it (raw shapes, open records' extras):
//! it cannot be copied as JSON, so it is kept as given.

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::guard::{number_fits, string_fits};
use super::jsonvalue::{copy_checked, copy_json, is_json_value, Checked};
use super::{find_near, find_text, Compiled, Contract, Extras, Filled, Tail};
use crate::errors::ContractError;
use crate::shape::Id;
use crate::stack::deeper;
use crate::text::keys::array_index;
use crate::text::number::{number_to_string, parse_number, plain_integer, short_decimal};
use crate::text::{char_len, trim};
use crate::value::{EntriesError, Kind, Node, View};

/// Builds parse output for a node type `N`.
pub trait Sink<N: Node> {
    /// An output value (cloned where a shared input container is copied once).
    type Out: Clone;
    /// The input node itself, unchanged.
    fn keep(&mut self, node: &N) -> Self::Out;
    /// A new string.
    fn string(&mut self, text: &[u8]) -> Self::Out;
    /// A number coerced from a string; `integer` when the shape demands an integer.
    fn number(&mut self, value: f64, integer: bool) -> Self::Out;
    /// A boolean coerced from a string or number.
    fn boolean(&mut self, value: bool) -> Self::Out;
    /// A new array.
    fn array(&mut self, items: Vec<Self::Out>) -> Self::Out;
    /// An array of `len` items under construction, given in order to [`Sink::push`] and
    /// finished by [`Sink::finish`].
    type Items;
    /// Room for an array of `len` items.
    fn items(&mut self, len: usize) -> Self::Items;
    /// Appends the next item.
    fn push(&mut self, items: &mut Self::Items, item: Self::Out);
    /// The array of the items pushed.
    fn finish(&mut self, items: Self::Items) -> Self::Out;
    /// A new record of `len` entries, keys in order.
    fn object(
        &mut self,
        len: usize,
        entries: impl Iterator<Item = (N::Key, Self::Out)>,
    ) -> Self::Out;
    /// A new record with the same keys as the record `input`, in the same order, given as
    /// `entries` (`len` of them): each value is `input`'s own or replaces it. A sink may
    /// start from a copy of `input`; by default it builds the record as [`Sink::object`].
    fn object_like(
        &mut self,
        input: &N,
        len: usize,
        entries: impl Iterator<Item = (N::Key, Self::Out)>,
    ) -> Self::Out {
        let _ = input;
        self.object(len, entries)
    }
    /// Whether `out` is the input node `node` itself, as [`Sink::keep`] gives it.
    fn is_kept(&self, out: &Self::Out, node: &N) -> bool {
        let _ = (out, node);
        false
    }
    /// A record under construction as a copy of an input record whose values are replaced
    /// where the output's differ (see [`Sink::draft`]).
    type Draft;
    /// Whether the record `input` may be parsed into a [`Sink::draft`] of it: its entries, read
    /// in order while it is walked, are those of the copy, and those of the table that
    /// [`Sink::drafted_entries`] reads. False by default: records are built from their entries.
    fn can_draft(&self, input: &N) -> bool {
        let _ = input;
        false
    }
    /// A copy of the record `input` (one [`Sink::can_draft`] accepted), taken while it is
    /// walked; `None` where it cannot be made.
    fn draft(&mut self, input: &N) -> Option<Self::Draft>;
    /// Puts `value` in place of the value of entry `position` of the draft, whose key is `key`;
    /// gives `value` back where the draft's entry there has another key.
    fn patch(
        &mut self,
        draft: &mut Self::Draft,
        position: usize,
        key: &N::Key,
        value: Self::Out,
    ) -> Result<(), Self::Out>;
    /// The finished record.
    fn drafted(&mut self, draft: Self::Draft) -> Self::Out;
    /// A copy of the record `input` ([`Sink::can_draft`] accepted it) once walked, where no
    /// value was replaced; `None` where it cannot be made.
    fn copy_record(&mut self, input: &N) -> Option<Self::Out>;
    /// The first `count` entries of `draft`, or, without one, of `input` (each kept as is).
    fn drafted_entries(
        &mut self,
        input: &N,
        draft: Option<Self::Draft>,
        count: usize,
    ) -> Vec<(N::Key, Self::Out)>;
    /// A scalar copied as plain data (clones); the node itself by default.
    fn plain(&mut self, node: &N) -> Self::Out {
        self.keep(node)
    }
}

/// `parseString`: a string as is, a finite number as its ECMAScript text.
pub fn coerce_string<'v>(view: &'v View<'_>) -> Option<Cow<'v, [u8]>> {
    match view {
        View::Str(text) => Some(Cow::Borrowed(&**text)),
        _ => view
            .finite()
            .map(|n| Cow::Owned(number_to_string(n).into_bytes())),
    }
}

/// `parseNumber`: a finite number as is, or a non-blank string read by `Number()`.
pub fn coerce_number(view: &View<'_>) -> Option<f64> {
    match view {
        View::Str(text) => {
            // What `parse_number` reads first, without the trim and the prefixes it looks for.
            if let Some(n) = plain_integer(text).or_else(|| short_decimal(text)) {
                return Some(n);
            }
            let body = trim(text);
            if body.is_empty() {
                return None;
            }
            parse_number(body).filter(|n| n.is_finite())
        }
        _ => view.finite(),
    }
}

/// `parseBoolean`: booleans, `"true"`/`"1"`/`1` and `"false"`/`"0"`/`0`.
pub fn coerce_boolean(view: &View<'_>) -> Option<bool> {
    match view {
        View::Bool(b) => Some(*b),
        View::Str(text) => match &**text {
            b"true" | b"1" => Some(true),
            b"false" | b"0" => Some(false),
            _ => None,
        },
        _ => match view.number() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
    }
}

/// A fresh copy of a JSON container `is_json_value` accepted.
fn fresh<N: Node, S: Sink<N>>(value: &N, sink: &mut S) -> Result<S::Out, ContractError> {
    copy_json(value, sink).ok_or_else(|| ContractError::unreadable("parse", "value", Some("json")))
}

/// A value kept without a check (raw shapes, open records' extras): JSON containers are copied
/// fresh; anything else (scalars, values that are not JSON data) is the input itself.
fn kept<N: Node, S: Sink<N>>(value: &N, kind: Kind, sink: &mut S) -> Result<S::Out, ContractError> {
    match kind {
        Kind::Array | Kind::Object => match copy_checked(value, sink) {
            Checked::Json(copy) => Ok(copy),
            Checked::NotJson => Ok(sink.keep(value)),
            Checked::Deep if is_json_value(value) => fresh(value, sink),
            Checked::Deep => Ok(sink.keep(value)),
        },
        _ => Ok(sink.keep(value)),
    }
}

/// A fresh copy of a JSON container, `None` when it is not JSON data.
fn json_container<N: Node, S: Sink<N>>(value: &N, sink: &mut S) -> Parsed<S, N> {
    match copy_checked(value, sink) {
        Checked::Json(copy) => Ok(Some(copy)),
        Checked::NotJson => Ok(None),
        Checked::Deep if is_json_value(value) => fresh(value, sink).map(Some),
        Checked::Deep => Ok(None),
    }
}

/// Puts record extras in JavaScript key order (array-index keys first), stably.
pub(super) fn js_sort<T>(extras: &mut [(Option<u32>, T)]) {
    if extras.iter().any(|(index, _)| index.is_some()) {
        extras.sort_by_key(|(index, _)| index.map_or((1, 0), |i| (0, i)));
    }
}

/// [`array_index`], with the usual key (not starting with a digit) refused inline.
#[inline(always)]
fn index_key(text: &[u8]) -> Option<u32> {
    match text.first() {
        Some(b'0'..=b'9') => array_index(text),
        _ => None,
    }
}

/// An undeclared key kept by an open record: its array index (for ordering), key and value.
type Extra<N, S> = (Option<u32>, (<N as Node>::Key, <S as Sink<N>>::Out));

type Parsed<S, N> = Result<Option<<S as Sink<N>>::Out>, ContractError>;

impl Contract {
    /// Parses `value` with coercion; `Ok(None)` when it does not satisfy the contract.
    pub fn parse<N: Node, S: Sink<N>>(&self, value: &N, sink: &mut S) -> Parsed<S, N> {
        deeper(0, || self.parse_at(0, value, sink, 1))
    }

    /// Parses one level deeper; a leaf accepted as is is kept inline (what
    /// [`Contract::parse_at`] gives it too), without the call and the stack check.
    #[inline(always)]
    fn parse_node<N: Node, S: Sink<N>>(
        &self,
        id: Id,
        value: &N,
        sink: &mut S,
        depth: u32,
    ) -> Parsed<S, N> {
        match self.leaf_guard(id, value) {
            Some(true) => Ok(Some(sink.keep(value))),
            _ => deeper(depth, || self.parse_at(id, value, sink, depth + 1)),
        }
    }

    fn parse_at<N: Node, S: Sink<N>>(
        &self,
        id: Id,
        value: &N,
        sink: &mut S,
        depth: u32,
    ) -> Parsed<S, N> {
        let kind = value.kind();
        let view = || value.view();
        // The same value through another shape (a variant, the inner shape of a wrapper):
        // one level deeper, without the leaf check the caller already made.
        let descend = |id: Id, sink: &mut S| -> Parsed<S, N> {
            deeper(depth, || self.parse_at(id, value, sink, depth + 1))
        };
        Ok(match &self.nodes[id] {
            Compiled::String { min, max, pattern } => {
                if kind == Kind::Str {
                    return Ok(self.guard(id, value, depth).then(|| sink.keep(value)));
                }
                let view = view();
                coerce_string(&view).and_then(|text| {
                    string_fits(*min, *max, pattern.as_ref(), char_len(&text), &text)
                        .then(|| sink.string(&text))
                })
            }
            Compiled::Number { min, max, integer } => match view().finite() {
                Some(n) => number_fits(n, *integer, *min, *max).then(|| sink.keep(value)),
                None => coerce_number(&view())
                    .filter(|n| number_fits(*n, *integer, *min, *max))
                    .map(|n| sink.number(n, *integer)),
            },
            Compiled::Boolean => match kind {
                Kind::Bool => Some(sink.keep(value)),
                _ => coerce_boolean(&view()).map(|b| sink.boolean(b)),
            },
            Compiled::Null => (kind == Kind::Null).then(|| sink.keep(value)),
            Compiled::Literal(values) => {
                let view = view();
                if values.contains(&view) {
                    Some(sink.keep(value))
                } else if let View::Str(text) = &view {
                    // A string with no space to trim was just looked up.
                    let trimmed = trim(text);
                    (trimmed.len() != text.len() && values.contains_text(trimmed))
                        .then(|| sink.string(trimmed))
                } else {
                    None
                }
            }
            Compiled::Array { items, min, max } => {
                if kind != Kind::Array {
                    return Ok(None);
                }
                let len = value
                    .len()
                    .map_err(|_| ContractError::unreadable("parse", "array", Some("array")))?;
                if min.is_some_and(|m| (len as u64) < m) || max.is_some_and(|m| (len as u64) > m) {
                    return Ok(None);
                }
                let mut out = sink.items(len);
                for index in 0..len {
                    let item = value
                        .item(index)
                        .map_err(|_| ContractError::unreadable("parse", "array", Some("array")))?;
                    match self.parse_node(*items, &item, sink, depth)? {
                        Some(parsed) => sink.push(&mut out, parsed),
                        None => return Ok(None),
                    }
                }
                Some(sink.finish(out))
            }
            Compiled::Object {
                props,
                index,
                required,
                tail,
            } => {
                if kind != Kind::Object {
                    return Ok(None);
                }
                return self.parse_object((props, index), *required, tail, value, sink, depth);
            }
            Compiled::Union { variants, one_of } => {
                if *one_of {
                    let mut matched = variants.iter().filter(|v| self.guard(**v, value, depth));
                    match (matched.next(), matched.next()) {
                        (Some(variant), None) => descend(*variant, sink)?,
                        _ => None,
                    }
                } else if let Some(variant) =
                    variants.iter().find(|v| self.guard(**v, value, depth))
                {
                    match kind {
                        // Accepted as is: parsing through that variant gives an equal value
                        // in fresh containers.
                        Kind::Array | Kind::Object => descend(*variant, sink)?,
                        _ => Some(sink.keep(value)),
                    }
                } else {
                    let mut found = None;
                    for variant in variants {
                        found = descend(*variant, sink)?;
                        if found.is_some() {
                            break;
                        }
                    }
                    found
                }
            }
            Compiled::Nullable(inner) => match kind {
                Kind::Null => Some(sink.keep(value)),
                _ => descend(*inner, sink)?,
            },
            Compiled::Optional(inner) => descend(*inner, sink)?,
            Compiled::Json => match kind {
                Kind::Array | Kind::Object => return json_container(value, sink),
                _ => is_json_value(value).then(|| sink.keep(value)),
            },
            Compiled::Raw => Some(kept(value, kind, sink)?),
        })
    }

    fn parse_object<N: Node, S: Sink<N>>(
        &self,
        (props, index): (&[super::Prop], &super::keys::KeyIndex),
        required: usize,
        tail: &Tail,
        value: &N,
        sink: &mut S,
        depth: u32,
    ) -> Parsed<S, N> {
        let mut slots = Filled::new(props.len());
        let mut extras: Extras<Extra<N, S>> = Extras::new();
        let mut failed: Result<bool, ContractError> = Ok(false);
        let (mut present, mut filled) = (0usize, 0usize);
        // Whether the output has exactly the input's keys in the input's order.
        let mut same_keys = true;
        let mut next_slot = 0usize;
        // While drafting, the output so far is the input's first `drafted` entries, each the
        // input's own value or the one put in `draft` (made at the first value replaced): no
        // entry is held. The first entry out of the input's order ends it (see `undraft`).
        let mut drafting = sink.can_draft(value);
        let mut draft: Option<S::Draft> = None;
        let mut drafted = 0usize;
        let read = value.entries(|entry| {
            let (shape, slot) = match find_near(props, index, &entry, next_slot) {
                Some(index) => (Some(props[index].shape), Some(index)),
                None => match tail {
                    Tail::Closed => {
                        if drafting {
                            drafting = false;
                            let entries = sink.drafted_entries(value, draft.take(), drafted);
                            undraft::<N, S>(props, index, entries, &mut slots, &mut extras);
                        }
                        same_keys = false;
                        return ControlFlow::Continue(());
                    }
                    Tail::Open => (None, None),
                    Tail::Shape(shape) => (Some(*shape), None),
                },
            };
            let mut parsed = match shape {
                Some(shape) => match self.parse_node(shape, entry.value, sink, depth) {
                    Ok(Some(parsed)) => parsed,
                    Ok(None) => {
                        failed = Ok(true);
                        return ControlFlow::Break(());
                    }
                    Err(error) => {
                        failed = Err(error);
                        return ControlFlow::Break(());
                    }
                },
                None => match kept(entry.value, entry.value.kind(), sink) {
                    Ok(out) => out,
                    Err(error) => {
                        failed = Err(error);
                        return ControlFlow::Break(());
                    }
                },
            };
            let at = match slot {
                Some(_) => None,
                None => index_key(&entry.text()),
            };
            if drafting {
                let in_order = match slot {
                    Some(index) => index >= next_slot && drafted == filled,
                    None => at.is_none(),
                };
                if in_order {
                    let stored = if sink.is_kept(&parsed, entry.value) {
                        Ok(())
                    } else {
                        if draft.is_none() {
                            if let Some(made) = sink.draft(value) {
                                draft.get_or_insert(made);
                            }
                        }
                        match &mut draft {
                            Some(copy) => sink.patch(copy, drafted, entry.key, parsed),
                            None => Err(parsed),
                        }
                    };
                    match stored {
                        Ok(()) => {
                            drafted += 1;
                            if let Some(index) = slot {
                                filled += 1;
                                present += usize::from(!props[index].optional);
                                next_slot = index + 1;
                            }
                            return ControlFlow::Continue(());
                        }
                        Err(back) => parsed = back,
                    }
                }
                drafting = false;
                let entries = sink.drafted_entries(value, draft.take(), drafted);
                undraft::<N, S>(props, index, entries, &mut slots, &mut extras);
            }
            let pair = (entry.key.clone(), parsed);
            match slot {
                Some(index) => {
                    if !slots.is_set(index) {
                        filled += 1;
                        present += usize::from(!props[index].optional);
                    } else {
                        same_keys = false;
                    }
                    if index < next_slot || !extras.is_empty() {
                        same_keys = false;
                    }
                    next_slot = index + 1;
                    slots.put(index, pair);
                }
                None => {
                    same_keys &= at.is_none();
                    extras.push((at, pair));
                }
            }
            ControlFlow::Continue(())
        });
        match read {
            Err(EntriesError::NotRecord) => return Ok(None),
            Err(EntriesError::Unreadable) => {
                return Err(ContractError::unreadable("parse", "object", Some("object")));
            }
            Ok(()) => {}
        }
        if failed? || present != required {
            return Ok(None);
        }
        if drafting {
            let made = match draft {
                Some(copy) => Some(sink.drafted(copy)),
                None => sink.copy_record(value),
            };
            if let Some(made) = made {
                return Ok(Some(made));
            }
            let entries = sink.drafted_entries(value, None, drafted);
            undraft::<N, S>(props, index, entries, &mut slots, &mut extras);
        }
        js_sort(extras.as_mut_slice());
        let len = filled + extras.len();
        let entries = slots.take().chain(extras.take().map(|(_, pair)| pair));
        if same_keys {
            return Ok(Some(sink.object_like(value, len, entries)));
        }
        Ok(Some(sink.object(len, entries)))
    }
}

/// Holds the entries a draft stood for (the input's first ones, in order, none of them an
/// array index) as the walk without a draft would have held them.
fn undraft<N: Node, S: Sink<N>>(
    props: &[super::Prop],
    index: &super::keys::KeyIndex,
    entries: Vec<(N::Key, S::Out)>,
    slots: &mut Filled<(N::Key, S::Out)>,
    extras: &mut Extras<Extra<N, S>>,
) {
    for (key, out) in entries {
        let found = if props.is_empty() {
            None
        } else {
            find_text(props, index, &N::key_text(&key), 0)
        };
        match found {
            Some(at) => slots.put(at, (key, out)),
            None => extras.push((None, (key, out))),
        }
    }
}
