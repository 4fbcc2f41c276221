//! The declaration gate (spec §4.2): an iterative walk that sees each unique node once,
//! records the first structure, cycle and domain problems, measures height and expanded
//! size, and yields an owned [`Declaration`].

use std::collections::{HashMap, HashSet};

use super::raw::RawInspector;
use super::{Additional, Decl, Declaration, Id, Lit, Mode};
use crate::constants::{COMPILE_DEPTH_LIMIT, COMPILE_NODE_LIMIT};
use crate::errors::{Code, Context, ContractError, Limit};
use crate::json::Num;
use crate::pattern::Pattern;
use crate::text::number::{is_safe_integer, number_to_string};
use crate::text::preview::preview_string;
pub use crate::text::preview::preview as received;
use crate::value::{Node, View};

const DOOR: &str = "validate_shape";

/// The fields of a record, in storage order; `None` when the value is not a record.
pub fn fields_of<N: Node>(node: &N) -> Option<Vec<(Box<[u8]>, N)>> {
    if !matches!(node.view(), View::Object) {
        return None;
    }
    let mut fields = Vec::new();
    node.entries(|entry| {
        fields.push((entry.text.into(), entry.value.clone()));
        std::ops::ControlFlow::Continue(())
    })
    .ok()?;
    Some(fields)
}

/// The value of `name` among `fields`.
pub fn field<'f, N>(fields: &'f [(Box<[u8]>, N)], name: &str) -> Option<&'f N> {
    fields
        .iter()
        .find(|(key, _)| &**key == name.as_bytes())
        .map(|(_, value)| value)
}

struct Child<N> {
    node: Option<N>,
    first: &'static str,
    second: Option<Box<[u8]>>,
    optional: bool,
}

struct Capture<N> {
    node: N,
    decl: Option<Decl>,
    optional: bool,
    children: Vec<Child<N>>,
    raw: usize,
}

enum Frame<N> {
    Enter {
        node: Option<N>,
        depth: usize,
        optional: bool,
        first: Option<&'static str>,
        second: Option<Box<[u8]>>,
    },
    Exit {
        index: usize,
        segments: usize,
    },
}

/// Validates a shape graph and returns its owned declaration.
///
/// `root_optional` admits an `optional` node at the root (the `optional_shape` builder).
pub fn validate<N: Node>(root: &N, root_optional: bool) -> Result<Declaration, ContractError> {
    let mut gate = Gate {
        captures: Vec::new(),
        index: HashMap::new(),
        active: HashSet::new(),
        path: Vec::new(),
        post: Vec::new(),
        structure: None,
        cycle: None,
        domain: None,
        raw: RawInspector::new(),
    };
    let mut stack = vec![Frame::Enter {
        node: Some(root.clone()),
        depth: 0,
        optional: root_optional,
        first: None,
        second: None,
    }];
    while let Some(frame) = stack.pop() {
        gate.visit(frame, &mut stack);
    }
    gate.finish()
}

struct Gate<N: Node> {
    captures: Vec<Capture<N>>,
    index: HashMap<usize, usize>,
    active: HashSet<usize>,
    path: Vec<Vec<u8>>,
    post: Vec<usize>,
    structure: Option<ContractError>,
    cycle: Option<ContractError>,
    domain: Option<ContractError>,
    raw: RawInspector,
}

impl<N: Node> Gate<N> {
    fn visit(&mut self, frame: Frame<N>, stack: &mut Vec<Frame<N>>) {
        let (node, depth, optional, first, second) = match frame {
            Frame::Exit { index, segments } => {
                self.active.remove(&self.captures[index].node.identity());
                self.post.push(index);
                self.path.truncate(self.path.len() - segments);
                return;
            }
            Frame::Enter {
                node,
                depth,
                optional,
                first,
                second,
            } => (node, depth, optional, first, second),
        };
        let segments = usize::from(first.is_some()) + usize::from(second.is_some());
        self.path.extend(first.map(|f| f.as_bytes().to_vec()));
        self.path.extend(second.map(|s| s.to_vec()));
        let finish = |gate: &mut Self| gate.path.truncate(gate.path.len() - segments);

        let Some((node, fields)) = node.and_then(|n| fields_of(&n).map(|f| (n, f))) else {
            self.refuse_here("every structural child must be a shape");
            return finish(self);
        };
        let identity = node.identity();
        if self.active.contains(&identity) {
            if self.cycle.is_none() {
                self.cycle = Some(self.error(Code::Cycle, "a shape graph may not contain a cycle", None));
            }
            return finish(self);
        }
        if let Some(&seen) = self.index.get(&identity) {
            self.place(seen, optional);
            return finish(self);
        }
        match self.observe(&fields, depth) {
            Some((decl, children, raw)) => {
                let is_optional = matches!(decl, Decl::Optional { .. });
                let index = self.capture(node, Some(decl), is_optional, children, raw);
                self.active.insert(identity);
                stack.push(Frame::Exit { index, segments });
                for child in self.captures[index].children.iter().rev() {
                    stack.push(Frame::Enter {
                        node: child.node.clone(),
                        depth: depth + 1,
                        optional: child.optional,
                        first: Some(child.first),
                        second: child.second.clone(),
                    });
                }
                self.place(index, optional);
            }
            None => {
                let index = self.capture(node, None, false, Vec::new(), 0);
                self.post.push(index);
                finish(self);
            }
        }
    }

    fn capture(
        &mut self,
        node: N,
        decl: Option<Decl>,
        optional: bool,
        children: Vec<Child<N>>,
        raw: usize,
    ) -> usize {
        let index = self.captures.len();
        self.index.insert(node.identity(), index);
        self.captures.push(Capture {
            node,
            decl,
            optional,
            children,
            raw,
        });
        index
    }

    fn path_with(&self, first: Option<&str>, second: Option<&[u8]>) -> Vec<Vec<u8>> {
        let mut path = self.path.clone();
        path.extend(first.map(|f| f.as_bytes().to_vec()));
        path.extend(second.map(<[u8]>::to_vec));
        path
    }

    fn error(&self, code: Code, message: &str, shape: Option<&'static str>) -> ContractError {
        ContractError::new(
            code,
            format!("{DOOR}: {message}"),
            Context {
                path: Some(self.path.clone()),
                shape,
                ..Context::default()
            },
        )
    }

    fn refuse_here(&mut self, message: &str) {
        self.refuse(message, None, None);
    }

    /// Records the first structure problem (at the current path plus up to two segments).
    fn refuse(&mut self, message: &str, first: Option<&str>, second: Option<&[u8]>) {
        if self.structure.is_none() {
            let path = self.path_with(first, second);
            self.structure = Some(ContractError::new(
                Code::Structure,
                format!("{DOOR}: {message}"),
                Context {
                    path: Some(path),
                    ..Context::default()
                },
            ));
        }
    }

    fn domain(&mut self, code: Code, message: &str, context: Context) {
        if self.domain.is_none() {
            let context = Context {
                path: Some(self.path.clone()),
                ..context
            };
            self.domain = Some(ContractError::new(code, format!("{DOOR}: {message}"), context));
        }
    }

    fn place(&mut self, index: usize, optional: bool) {
        if optional || self.domain.is_some() || !self.captures[index].optional {
            return;
        }
        self.domain = Some(self.error(
            Code::Placement,
            "an optional shape may only appear as a direct object-property value",
            Some("optional"),
        ));
    }

    #[allow(clippy::type_complexity)]
    fn observe(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        depth: usize,
    ) -> Option<(Decl, Vec<Child<N>>, usize)> {
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
                self.range_check("an array", "array", min.map(|m| m as f64), max.map(|m| m as f64));
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
                    self.refuse("raw schema exceeds the compilation depth limit", Some("schema"), None);
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
                self.refuse(&format!("{shape} {name} must be a number"), Some(name), None);
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
                        &format!("{article} {shape} shape {name} must be a non-negative safe integer"),
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

    fn string(&mut self, fields: &[(Box<[u8]>, N)], description: Option<Box<[u8]>>) -> Option<Decl> {
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
        self.range_check("a string", "string", min_raw.map(Num::value), max_raw.map(Num::value));
        Some(Decl::String {
            min,
            max,
            pattern,
            description,
        })
    }

    fn number(&mut self, fields: &[(Box<[u8]>, N)], description: Option<Box<[u8]>>) -> Option<Decl> {
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
        let shape = if integer == Some(true) { "integer" } else { "number" };
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

    fn list(&mut self, fields: &[(Box<[u8]>, N)], name: &'static str, message: &str) -> Option<Vec<N>> {
        let items = field(fields, name).and_then(|list| {
            if !matches!(list.view(), View::Array) {
                return None;
            }
            let len = list.len().ok()?;
            (0..len).map(|i| list.item(i).ok()).collect::<Option<Vec<N>>>()
        });
        if items.is_none() {
            self.refuse(message, Some(name), None);
        }
        items
    }

    fn literal(&mut self, fields: &[(Box<[u8]>, N)], description: Option<Box<[u8]>>) -> Option<Decl> {
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
                self.refuse("literal values must be unique", Some("values"), Some(key.as_bytes()));
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

    fn object(
        &mut self,
        fields: &[(Box<[u8]>, N)],
        description: Option<Box<[u8]>>,
        children: &mut Vec<Child<N>>,
    ) -> Option<Decl> {
        let Some(properties) = field(fields, "properties").and_then(fields_of) else {
            self.refuse("properties must be a plain property map", Some("properties"), None);
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

    fn union(
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

impl<N: Node> Gate<N> {
    fn locate(&self, child: &Child<N>) -> Option<usize> {
        child
            .node
            .as_ref()
            .and_then(|n| self.index.get(&n.identity()).copied())
    }

    /// Heights and expanded sizes bottom-up over the discovery postorder (back edges
    /// contribute nothing), then the depth verdict with a pre-order witness path.
    fn measure(&self) -> Result<(Vec<u64>, bool), ContractError> {
        let count = self.captures.len();
        let mut height = vec![0usize; count];
        let mut size = vec![1u64; count];
        for &index in &self.post {
            let mut h = 0;
            let mut s = 1u64;
            for child in &self.captures[index].children {
                let located = self.locate(child);
                h = h.max(located.map_or(0, |c| height[c]) + 1);
                s = s.saturating_add(located.map_or(1, |c| size[c]));
            }
            height[index] = h;
            size[index] = s;
        }
        if count > 0 && height[0] > COMPILE_DEPTH_LIMIT {
            return Err(self.witness(&height));
        }
        let expands = count > 0 && size[0] > COMPILE_NODE_LIMIT;
        Ok((size, expands))
    }

    fn witness(&self, height: &[usize]) -> ContractError {
        let mut path: Vec<Vec<u8>> = Vec::new();
        let mut index = Some(0);
        let mut depth = 0;
        while depth <= COMPILE_DEPTH_LIMIT {
            let Some(current) = index else { break };
            let chosen = self.captures[current].children.iter().find(|child| {
                let reached = self.locate(child).map_or(0, |c| height[c]);
                depth + 1 + reached > COMPILE_DEPTH_LIMIT
            });
            let Some(child) = chosen else { break };
            path.push(child.first.as_bytes().to_vec());
            path.extend(child.second.as_ref().map(|s| s.to_vec()));
            index = self.locate(child);
            depth += 1;
        }
        ContractError::new(
            Code::Depth,
            format!("{DOOR}: a shape exceeds the compilation depth limit"),
            Context {
                path: Some(path),
                limit: Some(Limit::Number(COMPILE_DEPTH_LIMIT as u64)),
                ..Context::default()
            },
        )
    }

    /// The deepest position of every raw node must leave room for its schema's height.
    fn check_raw_reach(&mut self) {
        let count = self.captures.len();
        let mut reach = vec![0usize; count];
        let mut via: Vec<Option<(usize, usize)>> = vec![None; count];
        for &index in self.post.iter().rev() {
            for (edge, child) in self.captures[index].children.iter().enumerate() {
                if let Some(located) = self.locate(child) {
                    if reach[located] < reach[index] + 1 {
                        reach[located] = reach[index] + 1;
                        via[located] = Some((index, edge));
                    }
                }
            }
        }
        for index in 0..count {
            let raw = self.captures[index].raw;
            if raw == 0 || reach[index] + raw <= COMPILE_DEPTH_LIMIT || self.structure.is_some() {
                continue;
            }
            let mut reversed: Vec<Vec<u8>> = Vec::new();
            let mut current = index;
            while let Some((parent, edge)) = via[current] {
                let child = &self.captures[parent].children[edge];
                reversed.extend(child.second.as_ref().map(|s| s.to_vec()));
                reversed.push(child.first.as_bytes().to_vec());
                current = parent;
            }
            reversed.reverse();
            reversed.push(b"schema".to_vec());
            self.structure = Some(ContractError::new(
                Code::Structure,
                format!("{DOOR}: raw schema exceeds the compilation depth limit"),
                Context {
                    path: Some(reversed),
                    ..Context::default()
                },
            ));
        }
    }

    fn finish(mut self) -> Result<Declaration, ContractError> {
        let (size, expands) = self.measure()?;
        if self.cycle.is_none() {
            self.check_raw_reach();
        }
        if let Some(error) = self.structure.take().or(self.cycle.take()).or(self.domain.take()) {
            return Err(error);
        }
        if expands {
            return Err(ContractError::new(
                Code::Expansion,
                format!("{DOOR}: a shape expands past the compilation node limit"),
                Context {
                    path: Some(Vec::new()),
                    limit: Some(Limit::Number(COMPILE_NODE_LIMIT)),
                    received: Some(size[0].to_string()),
                    ..Context::default()
                },
            ));
        }
        let locals: Vec<Vec<Id>> = self
            .captures
            .iter()
            .map(|capture| {
                capture
                    .children
                    .iter()
                    .map(|child| self.locate(child).unwrap_or(0))
                    .collect()
            })
            .collect();
        let nodes = self
            .captures
            .into_iter()
            .zip(locals)
            .map(|(capture, ids)| {
                let mut decl = capture.decl.unwrap_or(Decl::Json { description: None });
                decl.remap(|local| ids.get(local).copied().unwrap_or(0));
                decl
            })
            .collect();
        Ok(Declaration { nodes })
    }
}

/// A literal member from a value: a string, a number or a boolean.
pub fn literal_of<N: Node>(value: &N) -> Option<Lit> {
    match value.view() {
        View::Str(text) => Some(Lit::Str(text.into_owned().into_boxed_slice())),
        View::Int(i) => Some(Lit::Num(Num::Int(i))),
        View::Float(f) => Some(Lit::Num(Num::Float(f))),
        View::Bool(b) => Some(Lit::Bool(b)),
        _ => None,
    }
}

/// Whether a number is a non-negative safe integer.
pub fn is_length(value: f64) -> bool {
    is_safe_integer(value) && value >= 0.0
}
