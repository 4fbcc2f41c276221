//! Compiling a query into a lazy-DFA regex that runs in time linear in the text.

use regex_automata::hybrid::dfa::DFA;
use regex_automata::hybrid::regex::Regex;
use regex_automata::nfa::thompson::{self, WhichCaptures, NFA};
use regex_automata::util::prefilter::Prefilter;
use regex_automata::MatchKind;
use regex_syntax::ast::ErrorKind;
use regex_syntax::hir::Hir;
use regex_syntax::ParserBuilder;

use super::error::SearchError;
use super::hir::rewrite;

/// Deepest group nesting a pattern may use; it bounds every recursive walk of the pattern.
const NEST_LIMIT: u32 = 128;
/// Heap the compiled NFA may use.
const NFA_LIMIT: usize = 2 << 20;
/// Heap the lazy DFA may use for its states before it clears them.
const CACHE_CAPACITY: usize = 4 << 20;
/// The lazy DFA gives up once it has cleared its cache this many times while producing fewer
/// than `BYTES_PER_STATE` bytes of progress per state built.
const CLEAR_LIMIT: usize = 4;
const BYTES_PER_STATE: usize = 16;

/// How a query is read and where its matches may lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Read the query as a regular expression rather than literal text.
    pub regex: bool,
    /// Match case exactly (`false` folds case, Unicode-aware).
    pub sensitive: bool,
    /// Confine matches to one line: nothing matches `\n`, and `\A` / `\z` anchor at lines.
    pub lines: bool,
}

/// A compiled query. It is immutable and may be shared across threads; each search makes its
/// own cache.
#[derive(Debug)]
pub struct Pattern {
    pub(super) regex: Regex,
}

impl Pattern {
    /// Compiles `query` under `options`, refusing what the linear-time engine cannot run.
    pub fn new(query: &str, options: Options) -> Result<Self, SearchError> {
        let source = if options.regex {
            query.to_owned()
        } else {
            regex_syntax::escape(query)
        };
        let hir = rewrite(parse(&source, options.sensitive)?, options.lines);
        let forward = nfa(&hir, false)?;
        let reverse = nfa(&hir, true)?;
        let prefilter = Prefilter::from_hir_prefix(MatchKind::LeftmostFirst, &hir);
        let forward = DFA::builder()
            .configure(tuned().prefilter(prefilter))
            .build_from_nfa(forward)
            .map_err(|_| SearchError::TooLarge)?;
        let reverse = DFA::builder()
            .configure(
                tuned()
                    .prefilter(None)
                    .specialize_start_states(false)
                    .match_kind(MatchKind::All),
            )
            .build_from_nfa(reverse)
            .map_err(|_| SearchError::TooLarge)?;
        Ok(Self {
            regex: Regex::builder().build_from_dfas(forward, reverse),
        })
    }
}

fn parse(source: &str, sensitive: bool) -> Result<Hir, SearchError> {
    let mut parser = ParserBuilder::new()
        .multi_line(true)
        .case_insensitive(!sensitive)
        .unicode(true)
        .utf8(true)
        .nest_limit(NEST_LIMIT)
        .build();
    parser
        .parse(source)
        .map_err(|error| refusal(source, &error))
}

fn refusal(source: &str, error: &regex_syntax::Error) -> SearchError {
    let (message, offset) = match error {
        regex_syntax::Error::Parse(parse) => {
            match parse.kind() {
                ErrorKind::UnsupportedLookAround => {
                    return SearchError::Unsupported {
                        feature: "look-around",
                    }
                }
                ErrorKind::UnsupportedBackreference => {
                    return SearchError::Unsupported {
                        feature: "backreference",
                    }
                }
                ErrorKind::EscapeUnrecognized
                    if source
                        .get(parse.span().start.offset..)
                        .is_some_and(|rest| rest.starts_with("\\k")) =>
                {
                    return SearchError::Unsupported {
                        feature: "backreference",
                    }
                }
                _ => {}
            }
            (parse.kind().to_string(), parse.span().start.offset)
        }
        regex_syntax::Error::Translate(translate) => {
            (translate.kind().to_string(), translate.span().start.offset)
        }
        _ => (error.to_string(), 0),
    };
    let at = source
        .get(..offset)
        .map_or(0, |prefix| prefix.chars().count());
    SearchError::Syntax { message, at }
}

fn nfa(hir: &Hir, reverse: bool) -> Result<NFA, SearchError> {
    thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .utf8(true)
                .reverse(reverse)
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(NFA_LIMIT)),
        )
        .build_from_hir(hir)
        .map_err(|_| SearchError::TooLarge)
}

fn tuned() -> regex_automata::hybrid::dfa::Config {
    DFA::config()
        .cache_capacity(CACHE_CAPACITY)
        .minimum_cache_clear_count(Some(CLEAR_LIMIT))
        .minimum_bytes_per_state(Some(BYTES_PER_STATE))
        .unicode_word_boundary(false)
}
