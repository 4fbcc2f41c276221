//! A fast path for the commonest pattern shape, a whole string of one ASCII class:
//! `^[a-z0-9-]{36}$`, `^\d+$`, `^[A-Z]*$`. It is answered with a length check and a byte
//! table instead of an automaton.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// `^class{min,max}$` over an ASCII-only class.
#[derive(Clone, Debug)]
pub(super) struct Simple {
    /// Whether each byte is in the class; bytes of 0x80 and up (non-ASCII UTF-8) never are.
    table: [bool; 256],
    min: usize,
    max: Option<usize>,
}

impl Simple {
    /// Recognizes the shape in a translated pattern.
    pub(super) fn analyze(translated: &str) -> Option<Simple> {
        let hir = regex_automata::util::syntax::parse(translated).ok()?;
        let HirKind::Concat(parts) = hir.kind() else {
            return None;
        };
        let [start, repeat, end] = parts.as_slice() else {
            return None;
        };
        if !matches!(start.kind(), HirKind::Look(Look::Start))
            || !matches!(end.kind(), HirKind::Look(Look::End))
        {
            return None;
        }
        let HirKind::Repetition(repetition) = repeat.kind() else {
            return None;
        };
        let table = ascii_table(&repetition.sub)?;
        Some(Simple {
            table,
            min: usize::try_from(repetition.min).ok()?,
            max: repetition.max.and_then(|m| usize::try_from(m).ok()),
        })
    }

    /// Whether `text` is entirely made of the class, with a length in bounds.
    #[inline]
    pub(super) fn is_match(&self, text: &[u8]) -> bool {
        if text.len() < self.min || self.max.is_some_and(|m| text.len() > m) {
            return false;
        }
        // Eight bytes per step without a branch per byte.
        let mut chunks = text.chunks_exact(8);
        let table = &self.table;
        let all = |bytes: &[u8]| bytes.iter().fold(true, |ok, &b| ok & table[usize::from(b)]);
        chunks.all(all) && all(chunks.remainder())
    }
}

fn ascii_table(hir: &Hir) -> Option<[bool; 256]> {
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        return None;
    };
    let mut table = [false; 256];
    for range in class.iter() {
        let (start, end) = (u32::from(range.start()), u32::from(range.end()));
        if end > 0x7F {
            return None;
        }
        for c in start..=end {
            table[c as usize] = true;
        }
    }
    Some(table)
}
