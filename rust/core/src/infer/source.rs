//! The read-only view inference needs of a value, implemented for parsed JSON (the tape) here
//! and for live Python objects in the binding.

use std::borrow::Cow;

use super::format::Format;

/// How a finite-or-not number classifies under JavaScript rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberClass {
    /// Finite and integral (`Number.isInteger`), including `-0` and `1e300`.
    Integer,
    /// Finite with a fractional part.
    Fraction,
    /// NaN or an infinity: JSON cannot carry it, so it infers `{}`.
    NonFinite,
}

impl NumberClass {
    /// Classifies a double.
    pub fn of(x: f64) -> NumberClass {
        if !x.is_finite() {
            NumberClass::NonFinite
        } else if x.fract() == 0.0 {
            NumberClass::Integer
        } else {
            NumberClass::Fraction
        }
    }
}

/// The inference-relevant kind of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Null,
    Boolean,
    Number(NumberClass),
    String,
    /// A date/time object: typed as a string, with this format in single-value inference.
    Temporal(Format),
    Array,
    Object,
    /// Anything JSON cannot express (functions, sets, bytes, …): infers `{}`.
    Other,
}

/// A value inference can walk. Implementations are cheap handles (`Copy`).
pub trait Source<'a>: Copy {
    /// Iterates the elements of an array.
    type Items: Iterator<Item = Self>;
    /// An object key, read only as far as needed.
    type Key: Copy;
    /// Iterates the entries of an object; a `None` key is one that is not a string.
    type Entries: Iterator<Item = (Option<Self::Key>, Self)>;
    /// Iterates the entries of an object known to have only string keys (see
    /// [`Source::string_entries`]).
    type StringEntries: Iterator<Item = (Self::Key, Self)>;

    /// The (WTF-8) text of a key.
    fn key_text(key: Self::Key) -> Cow<'a, [u8]>;
    /// A number only keys with this key's text can have during one epoch of an accumulator
    /// (see `Accumulator::add_all`), so a key met again is known without reading its text;
    /// `0` when the source has none.
    fn key_identity(_key: Self::Key) -> usize {
        0
    }
    /// The length of a key's text and its first 16 bytes as two little-endian words,
    /// zero-padded: what a slot compares first to know a key it met before.
    fn key_head(key: Self::Key) -> (usize, [u64; 2]) {
        let text = Self::key_text(key);
        (text.len(), super::fields::pack(&text))
    }
    /// Whether every key of an object is a string that passes `check(pos, len, head)` (with
    /// [`Source::key_head`]) and, when longer than 16 bytes, `long(pos, key)`; in entry order,
    /// stopping at the first that fails.
    #[inline(always)]
    fn all_key_heads(
        self,
        mut check: impl FnMut(usize, usize, [u64; 2]) -> bool,
        long: impl FnMut(usize, Self::Key) -> bool,
    ) -> bool {
        self.all_key_leaves::<true>(|pos, len, head, _, _| check(pos, len, head), long)
    }
    /// [`Source::all_key_heads`] with each value and its [`Source::leaf`] too:
    /// `check(pos, len, head, leaf, value)`, `long(pos, key)` asked first for a key longer
    /// than 16 bytes. Without `HEADS` the keys are not read: each `len` and `head` is zero.
    #[inline]
    fn all_key_leaves<const HEADS: bool>(
        self,
        mut check: impl FnMut(usize, usize, [u64; 2], Option<u32>, Self) -> bool,
        mut long: impl FnMut(usize, Self::Key) -> bool,
    ) -> bool {
        self.entries().enumerate().all(|(pos, (key, value))| {
            key.is_some_and(|key| {
                let (len, head) = if HEADS {
                    Self::key_head(key)
                } else {
                    (0, [0; 2])
                };
                (len <= 16 || long(pos, key)) && check(pos, len, head, value.leaf(), value)
            })
        })
    }
    /// Whether [`Source::key_identity`] ever answers other than `0`.
    const KEY_IDENTITIES: bool = false;

    /// What kind of value this is.
    fn kind(self) -> Kind;
    /// The term of a value that is not a container, for a slot that tracks neither enums nor
    /// formats; `None` for an array or an object. The same answer as mapping [`Source::kind`],
    /// which a source may give without building a [`Kind`].
    #[inline]
    fn leaf(self) -> Option<u32> {
        leaf_of(self.kind())
    }
    /// The double of a number (only called when `kind` is a number).
    fn number(self) -> f64;
    /// Whether [`Source::number`] is the number exactly. Integers beyond 2^53 lose digits as
    /// doubles, so they cannot be enum members that Python compares exactly.
    fn number_exact(self) -> bool {
        true
    }
    /// The (WTF-8) text of a string (only called when `kind` is a string).
    fn text(self) -> Cow<'a, [u8]>;
    /// The element or entry count of a container.
    fn len(self) -> usize;
    /// Whether a container has no element or entry.
    fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// The elements of an array.
    fn items(self) -> Self::Items;
    /// The entries of an object.
    fn entries(self) -> Self::Entries;
    /// The entries [`Source::entries`] gives, in the same order, when the source knows without
    /// reading them that every key is a string (a Python dict whose table holds `str` keys
    /// only), read without a check per key; `None` otherwise.
    fn string_entries(self) -> Option<Self::StringEntries>;
    /// An identity for containers that may be reached twice (shared or cyclic); `None` when the
    /// value can only be reached once, as with parsed JSON.
    fn identity(self) -> Option<usize>;
    /// Whether an object can hold the same key twice (parsed JSON can; the last one wins).
    fn duplicate_keys() -> bool;
}

/// The leaf term of a kind; `None` for an array or an object (see [`Source::leaf`]).
#[inline]
pub fn leaf_of(kind: Kind) -> Option<u32> {
    use super::terms::{BOOLEAN, EMPTY, INTEGER, NULL, NUMBER, STRING};
    Some(match kind {
        Kind::Null => NULL,
        Kind::Boolean => BOOLEAN,
        Kind::Other | Kind::Number(NumberClass::NonFinite) => EMPTY,
        Kind::Number(NumberClass::Integer) => INTEGER,
        Kind::Number(NumberClass::Fraction) => NUMBER,
        Kind::String | Kind::Temporal(_) => STRING,
        Kind::Array | Kind::Object => return None,
    })
}
