//! Finding every match of a pattern in a text, and replacing them.
//!
//! Matches are the non-overlapping leftmost-first ones, found left to right; an empty match is
//! recorded and the scan moves on by one code point, as JavaScript's global matching does.
//!
//! Each search is linear in the text, but the iteration can rescan: a branch that might still
//! win keeps the engine reading past a match that is already known. A work budget, counted in
//! bytes the engine actually read, turns that quadratic case into a `TooExpensive` refusal.

use regex_automata::hybrid::regex::Cache;
use regex_automata::{Input, Match};

use super::error::SearchError;
use super::pattern::Pattern;
use super::text::{count_points, is_boundary, next_point};

/// How many times over the engine may read the text in one search or replace.
const BUDGET_FACTOR: usize = 8;
/// Reading allowed regardless of the text's size.
const BUDGET_FLOOR: usize = 8 << 20;

/// What a hit costs beyond its line and path when a bounded search counts its results: the
/// framing of one serialized match (its keys, numbers and quotes) rounded up.
pub const HIT_OVERHEAD: usize = 64;

/// One match: where it starts (1-based line, 1-based column in code points), its length in
/// code points, and the line holding its start (the line break excluded) as code-point offsets
/// `start..end` and as the byte range `bytes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub line: usize,
    pub column: usize,
    pub length: usize,
    pub start: usize,
    pub end: usize,
    pub bytes: std::ops::Range<usize>,
}

impl Pattern {
    /// Finds up to `limit` matches in `text` (all of them when `limit` is `None`).
    pub fn search(&self, text: &[u8], limit: Option<usize>) -> Result<Vec<Hit>, SearchError> {
        self.search_within(text, limit, usize::MAX, 0)
            .map(|(hits, _)| hits)
    }

    /// Finds up to `limit` matches in `text`, refusing with [`SearchError::Oversize`] as soon
    /// as the hits would cost more than `size` bytes, each costing the bytes of its line plus
    /// `per_hit`. Returns the hits and the bytes they cost.
    pub fn search_within(
        &self,
        text: &[u8],
        limit: Option<usize>,
        size: usize,
        per_hit: usize,
    ) -> Result<(Vec<Hit>, usize), SearchError> {
        let mut hits = Vec::new();
        let mut spent = 0usize;
        let mut lines = Lines {
            line: 1,
            ..Lines::default()
        };
        self.each(text, limit, |found| {
            let hit = lines.hit(text, found.start(), found.end());
            spent = spent
                .saturating_add(hit.bytes.len())
                .saturating_add(per_hit);
            if spent > size {
                return Err(SearchError::Oversize);
            }
            hits.push(hit);
            Ok(())
        })?;
        Ok((hits, spent))
    }

    /// Replaces up to `limit` matches in `text` with `replacement`, taken literally. Returns the
    /// new text and the number of replacements, or `None` when nothing matched.
    pub fn replace(
        &self,
        text: &[u8],
        replacement: &[u8],
        limit: Option<usize>,
    ) -> Result<Option<(Vec<u8>, usize)>, SearchError> {
        self.replace_within(text, replacement, limit, usize::MAX)
    }

    /// Like [`Pattern::replace`], but refuses with [`SearchError::Oversize`] before the new
    /// text grows past `size` bytes, so an amplifying replace never allocates its result.
    pub fn replace_within(
        &self,
        text: &[u8],
        replacement: &[u8],
        limit: Option<usize>,
        size: usize,
    ) -> Result<Option<(Vec<u8>, usize)>, SearchError> {
        let mut out = Vec::new();
        let mut copied = 0;
        let count = self.each(text, limit, |found| {
            let kept = &text[copied..found.start()];
            if out.len() + kept.len() + replacement.len() > size {
                return Err(SearchError::Oversize);
            }
            out.extend_from_slice(kept);
            out.extend_from_slice(replacement);
            copied = found.end();
            Ok(())
        })?;
        if count == 0 {
            return Ok(None);
        }
        if out.len() + (text.len() - copied) > size {
            return Err(SearchError::Oversize);
        }
        out.extend_from_slice(&text[copied..]);
        Ok(Some((out, count)))
    }

    fn each(
        &self,
        text: &[u8],
        limit: Option<usize>,
        mut visit: impl FnMut(Match) -> Result<(), SearchError>,
    ) -> Result<usize, SearchError> {
        let limit = limit.unwrap_or(usize::MAX);
        let mut cache = self.regex.create_cache();
        let mut budget = BUDGET_FACTOR
            .saturating_mul(text.len())
            .saturating_add(BUDGET_FLOOR);
        let mut count = 0;
        let mut at = 0;
        while count < limit && at <= text.len() {
            let Some(found) = self.find(&mut cache, text, at, &mut budget)? else {
                break;
            };
            if !is_boundary(text, found.start()) || !is_boundary(text, found.end()) {
                at = next_point(text, found.start());
                continue;
            }
            visit(found)?;
            count += 1;
            at = if found.is_empty() {
                next_point(text, found.end())
            } else {
                found.end()
            };
        }
        Ok(count)
    }

    fn find(
        &self,
        cache: &mut Cache,
        text: &[u8],
        at: usize,
        budget: &mut usize,
    ) -> Result<Option<Match>, SearchError> {
        let before = spent(cache);
        let input = Input::new(text).range(at..);
        let found = self
            .regex
            .try_search(cache, &input)
            .map_err(|_| SearchError::TooExpensive)?;
        let after = spent(cache);
        let cost = after.0.saturating_sub(before.0) + after.1.saturating_sub(before.1);
        *budget = budget.checked_sub(cost).ok_or(SearchError::TooExpensive)?;
        Ok(found)
    }
}

/// Bytes the forward and reverse lazy DFAs have read since their caches were last cleared. A
/// clear resets a count, so a search spanning one is under-counted, never over-counted.
fn spent(cache: &Cache) -> (usize, usize) {
    let (forward, reverse) = cache.as_parts();
    (forward.search_total_len(), reverse.search_total_len())
}

/// Tracks line numbers and code-point offsets while matches arrive in increasing order, so
/// the whole search counts each byte a bounded number of times.
#[derive(Default)]
struct Lines {
    line: usize,
    start_byte: usize,
    start_point: usize,
    cursor_byte: usize,
    cursor_point: usize,
    end: Option<(usize, usize)>,
}

impl Lines {
    fn hit(&mut self, text: &[u8], from: usize, to: usize) -> Hit {
        let skipped = &text[self.cursor_byte..from];
        if let Some(last) = memchr::memrchr(b'\n', skipped) {
            let newlines = memchr::memchr_iter(b'\n', skipped).count();
            let start = self.cursor_byte + last + 1;
            self.line += newlines;
            self.start_point = self.cursor_point + count_points(&text[self.cursor_byte..start]);
            self.start_byte = start;
            self.cursor_byte = start;
            self.cursor_point = self.start_point;
            self.end = None;
        }
        self.cursor_point += count_points(&text[self.cursor_byte..from]);
        self.cursor_byte = from;
        let (end_byte, end_point) = *self.end.get_or_insert_with(|| {
            let end = memchr::memchr(b'\n', &text[from..]).map_or(text.len(), |at| from + at);
            (end, self.cursor_point + count_points(&text[from..end]))
        });
        Hit {
            line: self.line,
            column: self.cursor_point - self.start_point + 1,
            length: count_points(&text[from..to]),
            start: self.start_point,
            end: end_point,
            bytes: self.start_byte..end_byte,
        }
    }
}
