//! Literal and regular-expression search and replace over text, in time linear in the text.
//!
//! The engine is a lazy DFA from `regex-automata`: it never backtracks, so a pattern such as
//! `(a+)+$` costs the same as any other, and it refuses look-around and backreferences, which no
//! linear-time engine can offer. Positions are 1-based lines and columns counted in code
//! points, which is how Python indexes a `str`.

mod error;
mod hir;
mod pattern;
mod scan;
mod text;

pub use error::SearchError;
pub use pattern::{Options, Pattern};
pub use scan::{Hit, HIT_OVERHEAD};
pub use text::{count_breaks, count_points, locate, Located};
