//! Rewrites a parsed pattern so its meaning fits the workspace search.
//!
//! Two rewrites happen here:
//! - word boundaries become ASCII ones, as in JavaScript, which also keeps the lazy DFA able to
//!   run over non-ASCII text (a Unicode word boundary makes it quit there);
//! - in line scope, nothing may match a line break: `\n` leaves every class, a literal holding
//!   one can never match, and the text anchors `\A` / `\z` become line anchors. A match then
//!   never spans two lines, so one pass over the whole text finds exactly the per-line matches.
//!
//! The walk recurses, but the parser's nesting limit bounds its depth.

use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Look, Repetition,
};

/// Returns `hir` rewritten for the given scope (`lines`: matches must stay within one line).
pub fn rewrite(hir: Hir, lines: bool) -> Hir {
    match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(literal) => {
            if lines && literal.0.contains(&b'\n') {
                Hir::fail()
            } else {
                Hir::literal(literal.0)
            }
        }
        HirKind::Class(class) => Hir::class(if lines { without_newline(class) } else { class }),
        HirKind::Look(look) => Hir::look(relook(look, lines)),
        HirKind::Repetition(repetition) => Hir::repetition(Repetition {
            sub: Box::new(rewrite(*repetition.sub, lines)),
            ..repetition
        }),
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(rewrite(*capture.sub, lines)),
            ..capture
        }),
        HirKind::Concat(parts) => {
            Hir::concat(parts.into_iter().map(|part| rewrite(part, lines)).collect())
        }
        HirKind::Alternation(parts) => {
            Hir::alternation(parts.into_iter().map(|part| rewrite(part, lines)).collect())
        }
    }
}

fn without_newline(class: Class) -> Class {
    match class {
        Class::Unicode(mut set) => {
            set.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            Class::Unicode(set)
        }
        Class::Bytes(mut set) => {
            set.difference(&ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')]));
            Class::Bytes(set)
        }
    }
}

fn relook(look: Look, lines: bool) -> Look {
    match look {
        Look::Start if lines => Look::StartLF,
        Look::End if lines => Look::EndLF,
        Look::WordUnicode => Look::WordAscii,
        Look::WordUnicodeNegate => Look::WordAsciiNegate,
        Look::WordStartUnicode => Look::WordStartAscii,
        Look::WordEndUnicode => Look::WordEndAscii,
        Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
        Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
        other => other,
    }
}
