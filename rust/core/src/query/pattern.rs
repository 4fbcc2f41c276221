//! Wildcard matching for the `like` and `glob` operators.
//!
//! A pattern is split on its any-run wildcard into segments. The first segment must match at the
//! start, the last at the end, and each middle segment at its leftmost place after the previous
//! one; leftmost placement is always safe because a later segment can only gain room by it. A
//! segment without single-character wildcards is found with the standard library's substring
//! search, so no pattern can drive the matcher into backtracking.

/// Matches `value` against a `like` pattern: `%` is any run, `_` exactly one character, there is
/// no escape character, and the comparison ignores case (full Unicode lower-casing).
pub fn like_match(pattern: &str, value: &str) -> bool {
    let pattern = pattern.to_lowercase();
    let value = value.to_lowercase();
    wildcard(&pattern, &value, '%', '_')
}

/// Matches `value` against a `glob` pattern: `*` is any run, `?` exactly one character, there are
/// no character classes, and the comparison is case-sensitive.
pub fn glob_match(pattern: &str, value: &str) -> bool {
    wildcard(pattern, value, '*', '?')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Literal(char),
    One,
}

struct Segment {
    tokens: Vec<Token>,
    literal: Option<String>,
}

impl Segment {
    fn new(text: &str, one: char) -> Segment {
        let tokens: Vec<Token> = text
            .chars()
            .map(|c| {
                if c == one {
                    Token::One
                } else {
                    Token::Literal(c)
                }
            })
            .collect();
        let literal = if tokens.contains(&Token::One) {
            None
        } else {
            Some(text.to_owned())
        };
        Segment { tokens, literal }
    }

    fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Matches the segment at the start of `text`, returning the bytes it covered.
    fn prefix(&self, text: &str) -> Option<usize> {
        let mut chars = text.char_indices();
        for token in &self.tokens {
            let (_, c) = chars.next()?;
            if let Token::Literal(expected) = token {
                if *expected != c {
                    return None;
                }
            }
        }
        Some(chars.next().map_or(text.len(), |(offset, _)| offset))
    }

    /// Finds the leftmost place the segment matches in `text`, returning its byte range.
    fn find(&self, text: &str) -> Option<(usize, usize)> {
        if let Some(literal) = &self.literal {
            return text
                .find(literal.as_str())
                .map(|start| (start, start + literal.len()));
        }
        text.char_indices()
            .map(|(start, _)| start)
            .chain(std::iter::once(text.len()))
            .find_map(|start| {
                self.prefix(&text[start..])
                    .map(|covered| (start, start + covered))
            })
    }
}

fn wildcard(pattern: &str, value: &str, any: char, one: char) -> bool {
    let segments: Vec<Segment> = pattern.split(any).map(|s| Segment::new(s, one)).collect();
    let (first, rest) = match segments.split_first() {
        Some(split) => split,
        None => return value.is_empty(),
    };
    let Some((last, middle)) = rest.split_last() else {
        return first.prefix(value) == Some(value.len());
    };
    let Some(mut position) = first.prefix(value) else {
        return false;
    };
    let tail = &value[position..];
    let tail_chars = tail.chars().count();
    if tail_chars < last.len() {
        return false;
    }
    let suffix_start = position
        + tail
            .char_indices()
            .nth(tail_chars - last.len())
            .map_or(tail.len(), |(offset, _)| offset);
    if last.prefix(&value[suffix_start..]) != Some(value.len() - suffix_start) {
        return false;
    }
    for segment in middle {
        if segment.len() == 0 {
            continue;
        }
        match segment.find(&value[position..suffix_start]) {
            Some((_, end)) => position += end,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_handles_runs_singles_and_case() {
        assert!(like_match("wid%", "Widget"));
        assert!(like_match("%GET", "widget"));
        assert!(like_match("w_dget", "WIDGET"));
        assert!(like_match("%", ""));
        assert!(like_match("%%%", "anything"));
        assert!(like_match("", ""));
        assert!(!like_match("", "x"));
        assert!(!like_match("w_dget", "wdget"));
        assert!(like_match("école", "ÉCOLE"));
        assert!(!like_match("_", "ab"));
        assert!(like_match("a%b%c", "aXbYc"));
        assert!(!like_match("a%b%c", "aXcYb"));
        assert!(like_match("%a_c%", "zzabcz"));
    }

    #[test]
    fn like_has_no_escape_character() {
        assert!(like_match("a\\%", "a\\anything"));
        assert!(!like_match("a\\%", "a%"));
        assert!(like_match("100%", "100%"));
    }

    #[test]
    fn glob_is_case_sensitive_with_no_classes() {
        assert!(glob_match("*.rs", "main.rs"));
        assert!(!glob_match("*.RS", "main.rs"));
        assert!(glob_match("a?c", "abc"));
        assert!(glob_match("[ab]", "[ab]"));
        assert!(!glob_match("[ab]", "a"));
        assert!(glob_match("%_", "%_"));
    }

    #[test]
    fn segments_do_not_overlap() {
        assert!(!like_match("ab%ba", "aba"));
        assert!(like_match("ab%ba", "abba"));
        assert!(!like_match("a%a%a", "aa"));
        assert!(like_match("a%a%a", "aaa"));
        assert!(like_match("%_%_%", "ab"));
        assert!(!like_match("%_%_%", "a"));
    }

    #[test]
    fn multibyte_characters_count_as_one() {
        assert!(like_match("_", "é"));
        assert!(like_match("a_c", "a😀c"));
        assert!(glob_match("??", "日本"));
        assert!(!glob_match("?", "日本"));
        assert!(glob_match("*本", "日本"));
    }

    #[test]
    fn hostile_patterns_stay_fast() {
        let value = "a".repeat(200_000);
        let pattern = format!("{}b", "%a".repeat(500));
        assert!(!like_match(&pattern, &value));
        let stars = "%".repeat(10_000);
        assert!(like_match(&stars, &value));
        let singles = format!("%{}b%", "_".repeat(500));
        assert!(!like_match(&singles, &"a".repeat(5_000)));
    }

    fn naive(pattern: &[char], value: &[char], any: char, one: char) -> bool {
        match pattern.split_first() {
            None => value.is_empty(),
            Some((&p, rest)) if p == any => {
                (0..=value.len()).any(|skip| naive(rest, &value[skip..], any, one))
            }
            Some((&p, rest)) => match value.split_first() {
                Some((&v, tail)) if p == one || p == v => naive(rest, tail, any, one),
                _ => false,
            },
        }
    }

    #[test]
    fn agrees_with_a_naive_matcher_on_every_short_pattern() {
        let alphabet = ['a', 'b', '*', '?'];
        let mut patterns = vec![String::new()];
        for _ in 0..4 {
            let next: Vec<String> = patterns
                .iter()
                .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
                .collect();
            patterns.extend(next);
        }
        patterns.sort();
        patterns.dedup();
        let mut values = vec![String::new()];
        for _ in 0..4 {
            let next: Vec<String> = values
                .iter()
                .flat_map(|v| ['a', 'b'].iter().map(move |c| format!("{v}{c}")))
                .collect();
            values.extend(next);
        }
        values.sort();
        values.dedup();
        for pattern in &patterns {
            let p: Vec<char> = pattern.chars().collect();
            for value in &values {
                let v: Vec<char> = value.chars().collect();
                assert_eq!(
                    glob_match(pattern, value),
                    naive(&p, &v, '*', '?'),
                    "{pattern:?} vs {value:?}"
                );
            }
        }
    }
}
