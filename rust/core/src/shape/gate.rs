//! The declaration gate (spec §4.2): an iterative walk that sees each unique node once,
//! records the first structure, cycle and domain problems, measures height and expanded
//! size, and yields an owned [`Declaration`].

use std::collections::{HashMap, HashSet};

use super::fields::fields_of;
use super::raw::RawInspector;
use super::{Decl, Declaration};
use crate::errors::{Code, Context, ContractError};
use crate::value::Node;

pub(super) const DOOR: &str = "validate_shape";

pub(super) struct Child<N> {
    pub(super) node: Option<N>,
    pub(super) first: &'static str,
    pub(super) second: Option<Box<[u8]>>,
    pub(super) optional: bool,
}

pub(super) struct Capture<N> {
    pub(super) node: N,
    pub(super) decl: Option<Decl>,
    pub(super) optional: bool,
    pub(super) children: Vec<Child<N>>,
    pub(super) raw: usize,
}

pub(super) enum Frame<N> {
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

pub(super) struct Gate<N: Node> {
    pub(super) captures: Vec<Capture<N>>,
    pub(super) index: HashMap<usize, usize>,
    pub(super) active: HashSet<usize>,
    pub(super) path: Vec<Vec<u8>>,
    pub(super) post: Vec<usize>,
    pub(super) structure: Option<ContractError>,
    pub(super) cycle: Option<ContractError>,
    pub(super) domain: Option<ContractError>,
    pub(super) raw: RawInspector,
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
                self.cycle =
                    Some(self.error(Code::Cycle, "a shape graph may not contain a cycle", None));
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

    pub(super) fn capture(
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

    pub(super) fn path_with(&self, first: Option<&str>, second: Option<&[u8]>) -> Vec<Vec<u8>> {
        let mut path = self.path.clone();
        path.extend(first.map(|f| f.as_bytes().to_vec()));
        path.extend(second.map(<[u8]>::to_vec));
        path
    }

    pub(super) fn error(
        &self,
        code: Code,
        message: &str,
        shape: Option<&'static str>,
    ) -> ContractError {
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

    pub(super) fn refuse_here(&mut self, message: &str) {
        self.refuse(message, None, None);
    }

    /// Records the first structure problem (at the current path plus up to two segments).
    pub(super) fn refuse(&mut self, message: &str, first: Option<&str>, second: Option<&[u8]>) {
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

    pub(super) fn domain(&mut self, code: Code, message: &str, context: Context) {
        if self.domain.is_none() {
            let context = Context {
                path: Some(self.path.clone()),
                ..context
            };
            self.domain = Some(ContractError::new(
                code,
                format!("{DOOR}: {message}"),
                context,
            ));
        }
    }

    pub(super) fn place(&mut self, index: usize, optional: bool) {
        if optional || self.domain.is_some() || !self.captures[index].optional {
            return;
        }
        self.domain = Some(self.error(
            Code::Placement,
            "an optional shape may only appear as a direct object-property value",
            Some("optional"),
        ));
    }
}
