//! Reading shape and schema records: their fields and their literal members.

use super::Lit;
use crate::json::Num;
use crate::value::{Node, View};

/// The fields of a record, in storage order; `None` when the value is not a record.
pub fn fields_of<N: Node>(node: &N) -> Option<Vec<(Box<[u8]>, N)>> {
    if !matches!(node.view(), View::Object) {
        return None;
    }
    let mut fields = Vec::new();
    node.entries(|entry| {
        fields.push((Box::from(&*entry.text()), entry.value.clone()));
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
