//! The gate's measurements over the captured graph: height (depth), expanded size and the
//! room each raw node leaves for its schema; then the verdict and the owned declaration.

use super::gate::{Child, Gate, DOOR};
use super::{Decl, Declaration, Id};
use crate::constants::{COMPILE_DEPTH_LIMIT, COMPILE_NODE_LIMIT};
use crate::errors::{Code, Context, ContractError, Limit};
use crate::value::Node;

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
        for (index, reached) in reach.iter().enumerate() {
            let raw = self.captures[index].raw;
            if raw == 0 || reached + raw <= COMPILE_DEPTH_LIMIT || self.structure.is_some() {
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

    pub(super) fn finish(mut self) -> Result<Declaration, ContractError> {
        let (size, expands) = self.measure()?;
        if self.cycle.is_none() {
            self.check_raw_reach();
        }
        if let Some(error) = self
            .structure
            .take()
            .or(self.cycle.take())
            .or(self.domain.take())
        {
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
