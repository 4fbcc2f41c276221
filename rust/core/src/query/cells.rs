//! The fast path of row encoding: which cells can be bound to the engine exactly as given.
//!
//! A cell that is already of its column's plain type is kept as is; everything else (a value to
//! coerce, a missing key, a JSON column, anything doubtful) is sent back to the caller's full,
//! coercing path. Keeping only exact matches means the fast path can never disagree with it.

/// How a column stores its cells, as far as the fast path is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// A string column: a NUL-free string is kept.
    Text,
    /// An integer column: a 64-bit integer is kept.
    Integer,
    /// A number column: a 64-bit integer or a finite float is kept.
    Real,
    /// A boolean column bound as a boolean.
    Bool,
    /// A boolean column bound as `0` / `1` (SQLite).
    Flag,
    /// A column the fast path never handles (JSON).
    Slow,
}

impl CellKind {
    /// Reads the code the binding passes for a column; unknown codes are `Slow`.
    pub fn from_code(code: u8) -> CellKind {
        match code {
            0 => CellKind::Text,
            1 => CellKind::Integer,
            2 => CellKind::Real,
            3 => CellKind::Bool,
            4 => CellKind::Flag,
            _ => CellKind::Slow,
        }
    }
}

/// What a cell holds, as read off the host value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sample<'a> {
    /// The key is missing or the value is null.
    Absent,
    Text(&'a str),
    /// An integer; `None` when it does not fit in 64 bits.
    Int(Option<i64>),
    Float(f64),
    Bool(bool),
    /// Anything else.
    Other,
}

/// What to bind for a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Bind the host value unchanged.
    Keep,
    /// Bind NULL.
    Null,
    /// Bind this integer (a boolean stored as `0` / `1`).
    Flag(i64),
    /// Leave the whole row to the full path.
    Slow,
}

/// Decides how one cell is bound, or that its row needs the full path.
pub fn judge(kind: CellKind, nullable: bool, sample: Sample<'_>) -> Verdict {
    match (kind, sample) {
        (_, Sample::Absent) if nullable => Verdict::Null,
        (CellKind::Text, Sample::Text(text)) if !text.contains('\0') => Verdict::Keep,
        (CellKind::Integer | CellKind::Real, Sample::Int(Some(_))) => Verdict::Keep,
        (CellKind::Real, Sample::Float(number)) if number.is_finite() => Verdict::Keep,
        (CellKind::Bool, Sample::Bool(_)) => Verdict::Keep,
        (CellKind::Flag, Sample::Bool(flag)) => Verdict::Flag(i64::from(flag)),
        _ => Verdict::Slow,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_cells_are_kept() {
        assert_eq!(
            judge(CellKind::Text, false, Sample::Text("a")),
            Verdict::Keep
        );
        assert_eq!(
            judge(CellKind::Integer, false, Sample::Int(Some(-3))),
            Verdict::Keep
        );
        assert_eq!(
            judge(CellKind::Real, false, Sample::Int(Some(3))),
            Verdict::Keep
        );
        assert_eq!(
            judge(CellKind::Real, false, Sample::Float(2.5)),
            Verdict::Keep
        );
        assert_eq!(
            judge(CellKind::Bool, false, Sample::Bool(true)),
            Verdict::Keep
        );
        assert_eq!(
            judge(CellKind::Flag, false, Sample::Bool(true)),
            Verdict::Flag(1)
        );
        assert_eq!(
            judge(CellKind::Flag, true, Sample::Bool(false)),
            Verdict::Flag(0)
        );
    }

    #[test]
    fn absent_cells_are_null_only_when_allowed() {
        assert_eq!(judge(CellKind::Text, true, Sample::Absent), Verdict::Null);
        assert_eq!(judge(CellKind::Slow, true, Sample::Absent), Verdict::Null);
        assert_eq!(judge(CellKind::Text, false, Sample::Absent), Verdict::Slow);
    }

    #[test]
    fn anything_to_coerce_or_doubt_goes_slow() {
        assert_eq!(
            judge(CellKind::Text, false, Sample::Text("a\0b")),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Text, false, Sample::Int(Some(1))),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Integer, false, Sample::Int(None)),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Integer, false, Sample::Float(1.0)),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Integer, false, Sample::Bool(true)),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Real, false, Sample::Float(f64::NAN)),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Real, false, Sample::Float(f64::INFINITY)),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Real, false, Sample::Text("1")),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Bool, false, Sample::Int(Some(1))),
            Verdict::Slow
        );
        assert_eq!(
            judge(CellKind::Slow, false, Sample::Text("{}")),
            Verdict::Slow
        );
        assert_eq!(judge(CellKind::Text, false, Sample::Other), Verdict::Slow);
    }

    #[test]
    fn unknown_codes_are_slow() {
        assert_eq!(CellKind::from_code(0), CellKind::Text);
        assert_eq!(CellKind::from_code(4), CellKind::Flag);
        assert_eq!(CellKind::from_code(9), CellKind::Slow);
    }
}
