//! ECMAScript patterns (no flags) on a linear-time engine: the source is translated to
//! the `regex` crate's dialect (`\d` ASCII, `\s` the JavaScript whitespace set, `.` without
//! line terminators). Look-around and backreferences have no linear-time equivalent and
//! are refused as unsupported.

use std::sync::Arc;

use regex::bytes::{Regex, RegexBuilder};
use regex_automata::dfa::dense::{self, DFA};
use regex_automata::dfa::Automaton;
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::Input;

mod class;
mod escape;
mod simple;
#[cfg(test)]
mod tests;
mod translate;

pub use translate::translate;

/// Why a pattern cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternError {
    /// Not a valid ECMAScript regular expression.
    Invalid(String),
    /// Valid ECMAScript that the linear-time engine cannot run.
    Unsupported(String),
}

impl PatternError {
    /// The human-readable reason.
    pub fn reason(&self) -> &str {
        match self {
            PatternError::Invalid(reason) | PatternError::Unsupported(reason) => reason,
        }
    }
}

/// A compiled pattern with its ECMAScript source. Small patterns also get a fully built DFA,
/// which answers without the lazy engine's cache; every pattern keeps the general engine.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub source: std::sync::Arc<[u8]>,
    regex: Regex,
    dense: Option<Arc<DFA<Vec<u32>>>>,
    /// Boxed: its byte table would make every `Pattern` (and the shapes holding one) large.
    simple: Option<Box<simple::Simple>>,
}

const DENSE_LIMIT: usize = 1 << 16;

fn dense(translated: &str) -> Option<Arc<DFA<Vec<u32>>>> {
    dense::Builder::new()
        .configure(
            dense::Config::new()
                .dfa_size_limit(Some(DENSE_LIMIT))
                .determinize_size_limit(Some(4 * DENSE_LIMIT)),
        )
        .syntax(syntax::Config::new().unicode(true).utf8(false))
        .thompson(thompson::Config::new().utf8(false))
        .build(translated)
        .ok()
        .map(Arc::new)
}

impl Pattern {
    /// Compiles an ECMAScript pattern source (WTF-8 bytes).
    pub fn compile(source: &[u8]) -> Result<Pattern, PatternError> {
        let translated = translate(source)?;
        let regex = RegexBuilder::new(&translated)
            .unicode(true)
            .build()
            .map_err(|error| {
                PatternError::Unsupported(format!("the pattern engine refused it ({error})"))
            })?;
        Ok(Pattern {
            source: source.into(),
            dense: dense(&translated),
            simple: simple::Simple::analyze(&translated).map(Box::new),
            regex,
        })
    }

    /// Whether a fully built automaton serves this pattern.
    pub fn has_dense(&self) -> bool {
        self.dense.is_some()
    }

    /// Whether the pattern matches somewhere in `text` (a search, not anchored).
    #[inline]
    pub fn is_match(&self, text: &[u8]) -> bool {
        if let Some(simple) = &self.simple {
            return simple.is_match(text);
        }
        if let Some(dfa) = &self.dense {
            if let Ok(found) = dfa.try_search_fwd(&Input::new(text).earliest(true)) {
                return found.is_some();
            }
        }
        self.regex.is_match(text)
    }
}
