//! ECMAScript patterns (no flags) on a linear-time engine: the source is translated to
//! the `regex` crate's dialect (`\d` ASCII, `\s` the JavaScript whitespace set, `.` without
//! line terminators). Look-around and backreferences have no linear-time equivalent and
//! are refused as unsupported.

use regex::bytes::{Regex, RegexBuilder};

mod class;
mod escape;
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

/// A compiled pattern with its ECMAScript source.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub source: Box<[u8]>,
    regex: Regex,
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
            regex,
        })
    }

    /// Whether the pattern matches somewhere in `text` (a search, not anchored).
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.regex.is_match(text)
    }
}
