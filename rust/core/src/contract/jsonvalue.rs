//! `isJSONValue` (spec §7): an iterative walk with no depth cap that refuses cycles,
//! non-finite numbers, non-records and anything that is not JSON data.

use std::collections::HashSet;
use std::ops::ControlFlow;

use crate::value::{Kind, Node, View};

/// The identities on the current path; a hash set takes over once the path is long.
#[derive(Default)]
pub struct Ancestors {
    list: Vec<usize>,
    set: Option<HashSet<usize>>,
}

impl Ancestors {
    const LINEAR: usize = 32;

    /// Whether `identity` is on the path.
    pub fn contains(&self, identity: usize) -> bool {
        match &self.set {
            Some(set) => set.contains(&identity),
            None => self.list.contains(&identity),
        }
    }

    /// Enters a container.
    pub fn push(&mut self, identity: usize) {
        self.list.push(identity);
        if let Some(set) = &mut self.set {
            set.insert(identity);
        } else if self.list.len() > Self::LINEAR {
            self.set = Some(self.list.iter().copied().collect());
        }
    }

    /// Leaves the innermost container.
    pub fn pop(&mut self) {
        if let (Some(identity), Some(set)) = (self.list.pop(), &mut self.set) {
            set.remove(&identity);
        }
    }
}

enum Step<N> {
    Enter(N),
    Exit,
}

/// Whether a scalar is JSON data; `None` for containers.
fn scalar<N: Node>(node: &N) -> Option<bool> {
    scalar_of(node, node.kind())
}

/// [`scalar`] of a node whose kind is known.
#[inline]
fn scalar_of<N: Node>(node: &N, kind: Kind) -> Option<bool> {
    match kind {
        Kind::Null | Kind::Bool | Kind::Str => Some(true),
        Kind::Number => Some(node.finite().is_some()),
        Kind::Other => Some(false),
        Kind::Array | Kind::Object => None,
    }
}

const SHALLOW: usize = 24;

/// A recursive walk with no allocation for values at most [`SHALLOW`] containers deep;
/// `None` when the value is deeper (the iterative walk then answers).
fn shallow<N: Node>(node: &N, path: &mut [usize; SHALLOW], depth: usize) -> Option<bool> {
    if let Some(answer) = scalar(node) {
        return Some(answer);
    }
    if depth == SHALLOW {
        return None;
    }
    let identity = node.identity();
    if path[..depth].contains(&identity) {
        return Some(false);
    }
    path[depth] = identity;
    each_item(node, node.kind(), |item| shallow(item, path, depth + 1))
}

/// Checks the items of an array or the values of a record in order: the first answer that
/// is not `Some(true)`, `Some(false)` when the container cannot be read, else `Some(true)`.
#[inline]
fn each_item<N: Node>(
    node: &N,
    kind: Kind,
    mut check: impl FnMut(&N) -> Option<bool>,
) -> Option<bool> {
    if kind == Kind::Array {
        let Ok(len) = node.len() else {
            return Some(false);
        };
        for index in 0..len {
            let Ok(item) = node.item(index) else {
                return Some(false);
            };
            match check(&item) {
                Some(true) => {}
                other => return other,
            }
        }
        return Some(true);
    }
    let mut answer = Some(true);
    let read = node.values(|value| match check(value) {
        Some(true) => ControlFlow::Continue(()),
        other => {
            answer = other;
            ControlFlow::Break(())
        }
    });
    if read.is_err() {
        return Some(false);
    }
    answer
}

/// Whether `root` is a JSON value: finite numbers, dense arrays, plain records, no cycles.
pub fn is_json_value<N: Node>(root: &N) -> bool {
    let kind = root.kind();
    if let Some(answer) = scalar_of(root, kind).or_else(|| flat(root, kind)) {
        return answer;
    }
    let mut path = [0usize; SHALLOW];
    match shallow(root, &mut path, 0) {
        Some(answer) => answer,
        None => walk(root),
    }
}

/// The answer for a container of scalars only (the usual list of tags), which needs no path;
/// `None` once a container is met before any item that is not JSON data. Items are visited
/// in the order [`shallow`] visits them, so the answers agree.
#[inline]
fn flat<N: Node>(node: &N, kind: Kind) -> Option<bool> {
    each_item(node, kind, scalar)
}

/// The iterative walk, with no depth cap.
fn walk<N: Node>(root: &N) -> bool {
    let mut ancestors = Ancestors::default();
    let mut stack = vec![Step::Enter(root.clone())];
    while let Some(step) = stack.pop() {
        let node = match step {
            Step::Exit => {
                ancestors.pop();
                continue;
            }
            Step::Enter(node) => node,
        };
        if let Some(answer) = scalar(&node) {
            if !answer {
                return false;
            }
            continue;
        }
        let identity = node.identity();
        if ancestors.contains(identity) {
            return false;
        }
        ancestors.push(identity);
        stack.push(Step::Exit);
        if node.kind() == Kind::Array {
            let Ok(len) = node.len() else { return false };
            for index in 0..len {
                let Ok(item) = node.item(index) else {
                    return false;
                };
                stack.push(Step::Enter(item));
            }
        } else {
            let read = node.values(|value| {
                stack.push(Step::Enter(value.clone()));
                ControlFlow::Continue(())
            });
            if read.is_err() {
                return false;
            }
        }
    }
    true
}

enum Build<N: Node> {
    Enter(N, bool),
    Array(usize),
    Object(Vec<N::Key>),
}

fn clone_error(door: &str, message: &str) -> crate::errors::ContractError {
    crate::errors::ContractError::new(
        crate::errors::Code::Clone,
        format!("{door}: {message}"),
        crate::errors::Context {
            shape: Some("json"),
            ..crate::errors::Context::default()
        },
    )
}

/// Deep-copies a JSON value into fresh containers (shared references are duplicated),
/// refusing anything that is not JSON data with a `clone` error.
pub fn clone_json<N: Node, S: super::Sink<N>>(
    root: &N,
    sink: &mut S,
    door: &str,
) -> Result<S::Out, crate::errors::ContractError> {
    use crate::constants::CLONE_NODE_LIMIT;
    use crate::value::EntriesError;
    let mut ancestors = Ancestors::default();
    let mut stack = vec![Build::Enter(root.clone(), false)];
    let mut values: Vec<S::Out> = Vec::new();
    let mut produced = 0usize;
    while let Some(step) = stack.pop() {
        match step {
            Build::Array(count) => {
                let items = values.split_off(values.len() - count);
                values.push(sink.array(items));
                ancestors.pop();
            }
            Build::Object(keys) => {
                let items = values.split_off(values.len() - keys.len());
                values.push(sink.object(keys.len(), keys.into_iter().zip(items)));
                ancestors.pop();
            }
            Build::Enter(node, nested) => {
                produced += 1;
                if produced > CLONE_NODE_LIMIT {
                    return Err(clone_error(door, "snapshot exceeds the node limit"));
                }
                let view = node.view();
                match view {
                    View::Null | View::Bool(_) | View::Int(_) | View::Str(_) => {
                        values.push(sink.plain(&node))
                    }
                    View::Float(f) if f.is_finite() => values.push(sink.plain(&node)),
                    View::Float(_) => return Err(clone_error(door, "number is not finite")),
                    View::Other("function") => {
                        let what = if nested {
                            "property is not JSON data"
                        } else {
                            "value is not JSON data"
                        };
                        return Err(clone_error(door, what));
                    }
                    View::Other(_) => {
                        return Err(clone_error(door, "object is not a plain record"))
                    }
                    View::Array | View::Object => {
                        let identity = node.identity();
                        if ancestors.contains(identity) {
                            return Err(clone_error(door, "cycle detected"));
                        }
                        ancestors.push(identity);
                        let mut children = Vec::new();
                        if matches!(view, View::Array) {
                            let unreadable = || clone_error(door, "array could not be read");
                            let len = node.len().map_err(|_| unreadable())?;
                            for index in 0..len {
                                children.push(node.item(index).map_err(|_| unreadable())?);
                            }
                            stack.push(Build::Array(len));
                        } else {
                            let mut keys = Vec::new();
                            let read = node.entries(|entry| {
                                keys.push(entry.key.clone());
                                children.push(entry.value.clone());
                                ControlFlow::Continue(())
                            });
                            match read {
                                Err(EntriesError::NotRecord) => {
                                    return Err(clone_error(
                                        door,
                                        "record has a key that is not a string",
                                    ));
                                }
                                Err(EntriesError::Unreadable) => {
                                    return Err(clone_error(door, "record could not be read"));
                                }
                                Ok(()) => {}
                            }
                            stack.push(Build::Object(keys));
                        }
                        stack.extend(
                            children
                                .into_iter()
                                .rev()
                                .map(|child| Build::Enter(child, true)),
                        );
                    }
                }
            }
        }
    }
    values
        .pop()
        .ok_or_else(|| clone_error(door, "value could not be read"))
}

enum Copy<N: Node> {
    Enter(N),
    Array(usize, usize),
    Object(usize, Vec<N::Key>),
}

/// Copies a value `is_json_value` accepted into fresh containers, leaves through `plain`.
/// A container reached twice (a shared reference) is copied once and shared in the copy, so
/// the copy is never larger than the input. `None` when a container could not be read.
pub fn copy_json<N: Node, S: super::Sink<N>>(root: &N, sink: &mut S) -> Option<S::Out> {
    use hashbrown::HashMap;
    let mut copies: HashMap<usize, S::Out> = HashMap::new();
    let mut stack = vec![Copy::Enter(root.clone())];
    let mut values: Vec<S::Out> = Vec::new();
    while let Some(step) = stack.pop() {
        match step {
            Copy::Array(identity, count) => {
                let items = values.split_off(values.len() - count);
                let out = sink.array(items);
                copies.insert(identity, out.clone());
                values.push(out);
            }
            Copy::Object(identity, keys) => {
                let items = values.split_off(values.len() - keys.len());
                let out = sink.object(keys.len(), keys.into_iter().zip(items));
                copies.insert(identity, out.clone());
                values.push(out);
            }
            Copy::Enter(node) => match node.kind() {
                Kind::Array | Kind::Object => {
                    let identity = node.identity();
                    if let Some(done) = copies.get(&identity) {
                        values.push(done.clone());
                        continue;
                    }
                    let mut children = Vec::new();
                    if node.kind() == Kind::Array {
                        let len = node.len().ok()?;
                        for index in 0..len {
                            children.push(node.item(index).ok()?);
                        }
                        stack.push(Copy::Array(identity, len));
                    } else {
                        let mut keys = Vec::new();
                        node.entries(|entry| {
                            keys.push(entry.key.clone());
                            children.push(entry.value.clone());
                            ControlFlow::Continue(())
                        })
                        .ok()?;
                        stack.push(Copy::Object(identity, keys));
                    }
                    stack.extend(children.into_iter().rev().map(Copy::Enter));
                }
                _ => values.push(sink.plain(&node)),
            },
        }
    }
    values.pop()
}

/// What [`copy_checked`] found.
pub enum Checked<T> {
    /// JSON data, copied into fresh containers.
    Json(T),
    /// Not JSON data (what `is_json_value` refuses).
    NotJson,
    /// Deeper than the recursive walk goes: ask `is_json_value` and `copy_json`.
    Deep,
}

/// The containers copied so far, by identity, so a shared container is copied once: the
/// first inline (most values hold one container), then a list, then a hash map.
struct Copies<T> {
    first: Option<(usize, T)>,
    list: Vec<(usize, T)>,
    map: Option<hashbrown::HashMap<usize, T>>,
}

impl<T: Clone> Copies<T> {
    const LINEAR: usize = 16;

    fn get(&self, identity: usize) -> Option<T> {
        if let Some((at, copy)) = &self.first {
            if *at == identity {
                return Some(copy.clone());
            }
        }
        match &self.map {
            Some(map) => map.get(&identity).cloned(),
            None => self
                .list
                .iter()
                .find(|(at, _)| *at == identity)
                .map(|(_, copy)| copy.clone()),
        }
    }

    fn insert(&mut self, identity: usize, copy: T) {
        if self.first.is_none() {
            self.first = Some((identity, copy));
            return;
        }
        if let Some(map) = &mut self.map {
            map.insert(identity, copy);
            return;
        }
        self.list.push((identity, copy));
        if self.list.len() > Self::LINEAR {
            self.map = Some(self.list.drain(..).collect());
        }
    }
}

/// `is_json_value` and `copy_json` in one recursive pass over a container at most
/// [`SHALLOW`] containers deep, with the same answers: refused exactly when
/// `is_json_value` refuses, and otherwise the copy `copy_json` makes.
pub fn copy_checked<N: Node, S: super::Sink<N>>(root: &N, sink: &mut S) -> Checked<S::Out> {
    let mut path = [0usize; SHALLOW];
    let mut copies = Copies {
        first: None,
        list: Vec::new(),
        map: None,
    };
    copy_shallow(root, sink, &mut path, 0, &mut copies)
}

fn copy_shallow<N: Node, S: super::Sink<N>>(
    node: &N,
    sink: &mut S,
    path: &mut [usize; SHALLOW],
    depth: usize,
    copies: &mut Copies<S::Out>,
) -> Checked<S::Out> {
    let kind = node.kind();
    match scalar_of(node, kind) {
        Some(true) => return Checked::Json(sink.plain(node)),
        Some(false) => return Checked::NotJson,
        None => {}
    }
    if depth == SHALLOW {
        return Checked::Deep;
    }
    let identity = node.identity();
    if path[..depth].contains(&identity) {
        return Checked::NotJson;
    }
    // A container copied already is not on the path (it was finished), so it is no cycle.
    if let Some(copy) = copies.get(identity) {
        return Checked::Json(copy);
    }
    path[depth] = identity;
    let out = if kind == Kind::Array {
        let Ok(len) = node.len() else {
            return Checked::NotJson;
        };
        let mut items = sink.items(len);
        for index in 0..len {
            let Ok(item) = node.item(index) else {
                return Checked::NotJson;
            };
            match copy_shallow(&item, sink, path, depth + 1, copies) {
                Checked::Json(copy) => sink.push(&mut items, copy),
                other => return other,
            }
        }
        sink.finish(items)
    } else {
        let mut entries = Vec::with_capacity(node.entry_count().min(4096));
        let mut failed = None;
        let read = node.entries(|entry| {
            match copy_shallow(entry.value, sink, path, depth + 1, copies) {
                Checked::Json(copy) => entries.push((entry.key.clone(), copy)),
                other => {
                    failed = Some(other);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        if read.is_err() {
            return Checked::NotJson;
        }
        if let Some(failed) = failed {
            return failed;
        }
        sink.object_like(node, entries.len(), entries.into_iter())
    };
    copies.insert(identity, out.clone());
    Checked::Json(out)
}
