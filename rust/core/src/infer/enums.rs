//! Per-slot trackers for enum inference (bounded distinct values) and unanimous formats.

use super::format::Format;
use super::json::{by_key, Json};
use super::limits::INFER_ENUM_LIMIT;
use super::text::{push_number, push_quoted};

/// The distinct primitive values of a slot while it can still become an `enum`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Enums {
    /// No value seen yet.
    #[default]
    Unset,
    /// Every value so far is a string; these are the distinct ones.
    Strings(Vec<Box<[u8]>>),
    /// Every value so far is a finite number; these are the distinct ones (`-0` stored as `0`).
    Numbers(Vec<f64>),
    /// A value of another kind, a mix, or too many distinct values.
    Off,
}

impl Enums {
    /// Whether the tracker still wants string values.
    pub fn wants_strings(&self) -> bool {
        matches!(self, Enums::Unset | Enums::Strings(_))
    }

    /// Whether the tracker still wants number values.
    pub fn wants_numbers(&self) -> bool {
        matches!(self, Enums::Unset | Enums::Numbers(_))
    }

    /// Records a string value.
    pub fn string(&mut self, text: &[u8]) {
        match self {
            Enums::Unset => *self = Enums::Strings(vec![text.into()]),
            Enums::Strings(list) => {
                if !list.iter().any(|s| &**s == text) {
                    list.push(text.into());
                    if list.len() > INFER_ENUM_LIMIT {
                        *self = Enums::Off;
                    }
                }
            }
            _ => *self = Enums::Off,
        }
    }

    /// Records a finite number.
    pub fn number(&mut self, x: f64) {
        let x = if x == 0.0 { 0.0 } else { x };
        match self {
            Enums::Unset => *self = Enums::Numbers(vec![x]),
            Enums::Numbers(list) => {
                if !list.contains(&x) {
                    list.push(x);
                    if list.len() > INFER_ENUM_LIMIT {
                        *self = Enums::Off;
                    }
                }
            }
            _ => *self = Enums::Off,
        }
    }

    /// Records a value that can never be an enum member.
    pub fn off(&mut self) {
        *self = Enums::Off;
    }

    /// Folds another tracker of the same slot into this one.
    pub fn merge(&mut self, other: &Enums) {
        match other {
            Enums::Unset => {}
            Enums::Off => self.off(),
            Enums::Strings(list) => {
                for s in list {
                    self.string(s);
                }
            }
            Enums::Numbers(list) => {
                for &x in list {
                    self.number(x);
                }
            }
        }
    }

    /// The `{enum: […]}` schema when the slot qualifies: at least two values, a repeat, and at
    /// most [`INFER_ENUM_LIMIT`] distinct members, sorted by their JSON text in UTF-16 order.
    pub fn schema(&self, count: u64) -> Option<Json> {
        let mut members: Vec<(Vec<u8>, Json)> = match self {
            Enums::Strings(list) => list
                .iter()
                .map(|s| {
                    let mut key = Vec::new();
                    push_quoted(&mut key, s);
                    (key, Json::Str(s.clone()))
                })
                .collect(),
            Enums::Numbers(list) => list
                .iter()
                .map(|&x| {
                    let mut key = Vec::new();
                    push_number(&mut key, x);
                    (key, Json::number(x))
                })
                .collect(),
            _ => return None,
        };
        let distinct = members.len() as u64;
        if count < 2 || distinct >= count || members.len() > INFER_ENUM_LIMIT {
            return None;
        }
        members.sort_by(by_key);
        let values = members.into_iter().map(|(_, v)| v).collect();
        Some(Json::Object(vec![(
            b"enum".as_slice().into(),
            Json::Array(values),
        )]))
    }
}

/// Whether every string of a slot has the same detected format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Formats {
    /// No string seen yet.
    #[default]
    Unset,
    /// Every string so far has this format.
    One(Format),
    /// Some string had no format, another format, or was not a real string.
    Mixed,
}

impl Formats {
    /// Whether detection is still worth running.
    pub fn open(self) -> bool {
        self != Formats::Mixed
    }

    /// Records the detected format of one string.
    pub fn observe(&mut self, format: Option<Format>) {
        *self = match (*self, format) {
            (Formats::Unset, Some(f)) => Formats::One(f),
            (Formats::One(a), Some(b)) if a == b => Formats::One(a),
            _ => Formats::Mixed,
        };
    }

    /// Folds another tracker of the same slot into this one.
    pub fn merge(&mut self, other: Formats) {
        match other {
            Formats::Unset => {}
            Formats::One(f) => self.observe(Some(f)),
            Formats::Mixed => *self = Formats::Mixed,
        }
    }
}
