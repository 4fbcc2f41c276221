//! The serde_json implementation of [`Node`], used by the core's own tests.

use std::borrow::Cow;
use std::ops::ControlFlow;

use serde_json::Value;

use crate::value::{EntriesError, Entry, Node, Unreadable, View};

impl Node for &Value {
    type Key = String;

    fn view(&self) -> View<'_> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => View::Int(i),
                None => View::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => View::Str(Cow::Borrowed(s.as_bytes())),
            Value::Array(_) => View::Array,
            Value::Object(_) => View::Object,
        }
    }

    fn key_text(key: &String) -> Cow<'_, [u8]> {
        Cow::Borrowed(key.as_bytes())
    }

    fn identity(&self) -> usize {
        std::ptr::from_ref::<Value>(self) as usize
    }

    fn len(&self) -> Result<usize, Unreadable> {
        match self {
            Value::Array(items) => Ok(items.len()),
            _ => Err(Unreadable),
        }
    }

    fn item(&self, index: usize) -> Result<Self, Unreadable> {
        match self {
            Value::Array(items) => items.get(index).ok_or(Unreadable),
            _ => Err(Unreadable),
        }
    }

    fn entries<F>(&self, mut visit: F) -> Result<(), EntriesError>
    where
        F: FnMut(Entry<'_, Self>) -> ControlFlow<()>,
    {
        let Value::Object(map) = self else {
            return Err(EntriesError::NotRecord);
        };
        for (key, value) in map {
            let entry = Entry {
                key,
                id: 0,
                value: &value,
            };
            if visit(entry).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// Builds serde values as parse output.
pub struct ValueSink;

impl<'a> crate::contract::Sink<&'a Value> for ValueSink {
    type Out = Value;

    fn keep(&mut self, node: &&'a Value) -> Value {
        (*node).clone()
    }

    fn string(&mut self, text: &[u8]) -> Value {
        Value::String(String::from_utf8_lossy(text).into_owned())
    }

    fn number(&mut self, value: f64, _integer: bool) -> Value {
        serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
    }

    fn boolean(&mut self, value: bool) -> Value {
        Value::Bool(value)
    }

    fn array(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }

    type Items = Vec<Value>;

    fn items(&mut self, len: usize) -> Vec<Value> {
        Vec::with_capacity(len)
    }

    fn push(&mut self, items: &mut Vec<Value>, item: Value) {
        items.push(item);
    }

    fn finish(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }

    fn object(&mut self, _len: usize, entries: impl Iterator<Item = (String, Value)>) -> Value {
        Value::Object(entries.collect())
    }

    type Draft = std::convert::Infallible;

    fn draft(&mut self, _input: &&'a Value) -> Option<Self::Draft> {
        None
    }

    fn patch(
        &mut self,
        draft: &mut Self::Draft,
        _position: usize,
        _key: &String,
        _value: Value,
    ) -> Result<(), Value> {
        match *draft {}
    }

    fn drafted(&mut self, draft: Self::Draft) -> Value {
        match draft {}
    }

    fn copy_record(&mut self, _input: &&'a Value) -> Option<Value> {
        None
    }

    fn drafted_entries(
        &mut self,
        _input: &&'a Value,
        _draft: Option<Self::Draft>,
        _count: usize,
    ) -> Vec<(String, Value)> {
        Vec::new()
    }
}

/// A JSON rendering of an owned document, for comparisons.
pub fn to_value(json: &crate::json::Json) -> Value {
    use crate::json::{Json, Num};
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(Num::Int(i)) => Value::from(*i),
        Json::Number(Num::Float(f)) => {
            serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
        }
        Json::String(s) => Value::String(String::from_utf8_lossy(s).into_owned()),
        Json::Array(items) => Value::Array(items.iter().map(|i| to_value(i)).collect()),
        Json::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), to_value(v)))
                .collect(),
        ),
    }
}

/// A fault as the JSON the Python binding would produce.
pub fn fault_value(fault: &crate::contract::Fault) -> Value {
    use crate::contract::FaultLimit;
    let mut out = serde_json::Map::new();
    out.insert("reason".into(), fault.reason.name().into());
    let path: Vec<Value> = fault
        .path
        .iter()
        .map(|s| Value::String(String::from_utf8_lossy(&s.text()).into_owned()))
        .collect();
    out.insert("path".into(), Value::Array(path));
    if let Some(expected) = fault.expected {
        out.insert("expected".into(), expected.into());
    }
    if let Some(constraint) = fault.constraint {
        out.insert("constraint".into(), constraint.into());
    }
    match &fault.limit {
        Some(FaultLimit::Number(n)) => {
            out.insert("limit".into(), to_value(&crate::json::Json::Number(*n)));
        }
        Some(FaultLimit::Text(t)) => {
            out.insert(
                "limit".into(),
                String::from_utf8_lossy(t).into_owned().into(),
            );
        }
        None => {}
    }
    if let Some(received) = &fault.received {
        out.insert("received".into(), received.text().into_owned().into());
    }
    if let Some(count) = fault.count {
        let key = if fault.reason == crate::contract::Reason::Variant {
            "variants"
        } else {
            "matched"
        };
        out.insert(key.into(), count.into());
    }
    Value::Object(out)
}

/// Advances a xorshift64 generator and returns its new state: the generated inputs of the
/// laws, the same on every run.
pub fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
