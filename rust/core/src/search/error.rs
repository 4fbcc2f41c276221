//! The ways a search pattern is refused.

use std::fmt;

/// Why a pattern cannot be compiled or run. Every variant maps to the workspace `PATTERN` code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The pattern uses a construct the linear-time engine does not offer: look-around or
    /// backreferences.
    Unsupported {
        /// The construct, in words (`look-around`, `backreference`).
        feature: &'static str,
    },
    /// The pattern does not parse; `message` is the parser's description, `at` the character
    /// offset of the problem.
    Syntax { message: String, at: usize },
    /// The compiled automaton would exceed the size limit.
    TooLarge,
    /// Running the pattern over this text would cost more than the engine allows: its cache of
    /// states thrashes, or its matches need the text rescanned again and again.
    TooExpensive,
    /// The search's hits or the replaced text would pass the size bound the caller set.
    Oversize,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unsupported { feature } => write!(
                f,
                "unsupported {feature}: the search engine runs in linear time, so it refuses \
                 look-around ((?=...), (?!...), (?<=...), (?<!...)) and backreferences (\\1, \
                 \\k<name>)"
            ),
            Self::Syntax { message, at } => {
                write!(
                    f,
                    "the pattern does not parse at character {}: {message}",
                    at + 1
                )
            }
            Self::TooLarge => f.write_str(
                "the pattern compiles to an automaton over the size limit; use smaller \
                 repetition counts or fewer alternatives",
            ),
            Self::TooExpensive => f.write_str(
                "the pattern is too expensive to run over this text; simplify it (for example \
                 drop a branch that can run to the end of a line)",
            ),
            Self::Oversize => f.write_str("the result would be larger than the size limit"),
        }
    }
}

impl std::error::Error for SearchError {}
