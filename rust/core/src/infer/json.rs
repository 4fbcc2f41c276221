//! The schema output tree, canonical keys (`canonicalStringify`) and `unifySchemas`.

use std::cmp::Ordering;

use super::text::{cmp_enumeration, cmp_utf16, push_number, push_quoted};

/// A JSON value produced by inference. Strings are WTF-8 bytes (keys may hold lone surrogates).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Box<[u8]>),
    Array(Vec<Json>),
    /// Entries in output order.
    Object(Vec<(Box<[u8]>, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(text: &[u8]) -> Json {
        Json::Str(text.into())
    }

    /// `{type: name}`.
    pub fn typed(name: &str) -> Json {
        Json::Object(vec![(
            b"type".as_slice().into(),
            Json::str(name.as_bytes()),
        )])
    }

    /// `{}`.
    pub fn empty() -> Json {
        Json::Object(Vec::new())
    }

    /// An object from entries, reordered the way JavaScript enumerates keys.
    pub fn record(mut entries: Vec<(Box<[u8]>, Json)>) -> Json {
        entries.sort_by(|a, b| cmp_enumeration(&a.0, &b.0));
        Json::Object(entries)
    }

    /// A number as JSON keeps it: integral values within ±2^53 become integers.
    pub fn number(x: f64) -> Json {
        if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
            Json::Int(x as i64)
        } else {
            Json::Float(x)
        }
    }

    /// Appends the canonical encoding: keys sorted in UTF-16 order at every level.
    pub fn canonical(&self, out: &mut Vec<u8>) {
        match self {
            Json::Null => out.extend_from_slice(b"null"),
            Json::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Json::Int(i) => push_number(out, *i as f64),
            Json::Float(x) if x.is_finite() => push_number(out, *x),
            Json::Float(_) => out.extend_from_slice(b"null"),
            Json::Str(s) => push_quoted(out, s),
            Json::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.canonical(out);
                }
                out.push(b']');
            }
            Json::Object(entries) => {
                let mut sorted: Vec<&(Box<[u8]>, Json)> = entries.iter().collect();
                sorted.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
                out.push(b'{');
                for (i, (key, value)) in sorted.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    push_quoted(out, key);
                    out.push(b':');
                    value.canonical(out);
                }
                out.push(b'}');
            }
        }
    }

    /// The canonical encoding as bytes.
    pub fn canonical_key(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.canonical(&mut out);
        out
    }

    /// The value under `key` when this is an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries
                .iter()
                .find(|(k, _)| &**k == key.as_bytes())
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// Compares as the conformance rules do: object key order ignored, numbers by value, and a
    /// boolean never equal to a number.
    pub fn equivalent(&self, other: &Json) -> bool {
        fn value(j: &Json) -> Option<f64> {
            match j {
                Json::Int(i) => Some(*i as f64),
                Json::Float(x) => Some(*x),
                _ => None,
            }
        }
        match (self, other) {
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(k, v)| {
                        b.iter()
                            .find(|(k2, _)| k2 == k)
                            .is_some_and(|(_, v2)| v.equivalent(v2))
                    })
            }
            (Json::Array(a), Json::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equivalent(y))
            }
            _ => match (value(self), value(other)) {
                (Some(x), Some(y)) => x == y,
                _ => self == other,
            },
        }
    }

    /// Writes compact JSON text (keys in stored order).
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Json::Object(entries) => {
                out.push(b'{');
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    push_quoted(out, key);
                    out.push(b':');
                    value.write(out);
                }
                out.push(b'}');
            }
            Json::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write(out);
                }
                out.push(b']');
            }
            leaf => leaf.canonical(out),
        }
    }

    /// Compact JSON text.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.write(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// `unifySchemas`: de-duplicate by canonical key, drop a bare integer next to a bare number,
/// sort by key, and wrap two or more survivors in `anyOf`.
pub fn unify(mut members: Vec<Json>) -> Json {
    if members.len() < 2 {
        return members.pop().unwrap_or_else(Json::empty);
    }
    let mut keyed: Vec<(Vec<u8>, Json)> = members
        .into_iter()
        .map(|m| (m.canonical_key(), m))
        .collect();
    keyed.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    keyed.dedup_by(|a, b| a.0 == b.0);
    let has = |k: &[u8], list: &[(Vec<u8>, Json)]| list.iter().any(|(key, _)| key == k);
    if has(br#"{"type":"integer"}"#, &keyed) && has(br#"{"type":"number"}"#, &keyed) {
        keyed.retain(|(key, _)| key.as_slice() != br#"{"type":"integer"}"#);
    }
    match keyed.len() {
        0 => Json::empty(),
        1 => keyed.pop().map_or_else(Json::empty, |(_, m)| m),
        _ => Json::Object(vec![(
            b"anyOf".as_slice().into(),
            Json::Array(keyed.into_iter().map(|(_, m)| m).collect()),
        )]),
    }
}

/// Sorts byte strings in UTF-16 order.
pub fn sort_utf16(list: &mut [Box<[u8]>]) {
    list.sort_by(|a, b| cmp_utf16(a, b));
}

/// Orders `(canonical key, value)` pairs by key in UTF-16 order.
pub fn by_key<T>(a: &(Vec<u8>, T), b: &(Vec<u8>, T)) -> Ordering {
    cmp_utf16(&a.0, &b.0)
}
