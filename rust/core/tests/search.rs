//! The workspace search engine: literal and regex matching, positions in code points, refusals.

use orkestrel_core::search::{count_points, locate, Hit, Located, Options, Pattern, SearchError};

fn pattern(query: &str, regex: bool, sensitive: bool) -> Pattern {
    Pattern::new(
        query,
        Options {
            regex,
            sensitive,
            lines: true,
        },
    )
    .expect("pattern compiles")
}

fn text_pattern(query: &str, regex: bool) -> Pattern {
    Pattern::new(
        query,
        Options {
            regex,
            sensitive: true,
            lines: false,
        },
    )
    .expect("pattern compiles")
}

fn spots(hits: &[Hit]) -> Vec<(usize, usize, usize)> {
    hits.iter()
        .map(|hit| (hit.line, hit.column, hit.length))
        .collect()
}

fn refusal(query: &str) -> SearchError {
    Pattern::new(
        query,
        Options {
            regex: true,
            sensitive: true,
            lines: true,
        },
    )
    .expect_err("pattern is refused")
}

#[test]
fn literal_search_reports_lines_columns_and_the_line_span() {
    let text = "const a = 1\nlet b = a.b\nconst c";
    let hits = pattern("a.b", false, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(
        hits,
        vec![Hit {
            line: 2,
            column: 9,
            length: 3,
            start: 12,
            end: 23,
            bytes: 12..23
        }]
    );
    let hits = pattern("const", false, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 5), (3, 1, 5)]);
}

#[test]
fn columns_and_lengths_count_code_points() {
    let text = "a\u{1F600}b\ne\u{301}x\u{1F600}\u{1F600}";
    let hits = pattern("b", false, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 3, 1)]);
    let hits = pattern("x\u{1F600}", false, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(2, 3, 2)]);
    assert_eq!((hits[0].start, hits[0].end), (4, 9));
    assert_eq!(hits[0].bytes, 7..19);
    let hits = pattern("e\u{301}", false, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(2, 1, 2)]);
}

#[test]
fn anchors_and_classes_stay_within_a_line() {
    let text = "foo bar\nfoo\n  foo";
    let hits = pattern("^foo", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 3), (2, 1, 3)]);
    let hits = pattern(r"\Afoo", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 3), (2, 1, 3)]);
    let hits = pattern(r"o\z", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(2, 3, 1), (3, 5, 1)]);
    let hits = pattern(r"r\s+f", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert!(hits.is_empty());
    let hits = pattern("[^x]+", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 7), (2, 1, 3), (3, 1, 5)]);
    let hits = pattern("foo\nbar", false, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert!(hits.is_empty());
}

#[test]
fn case_folding_is_unicode_aware() {
    let hits = pattern("ÉTÉ", false, false)
        .search("un été, un Été".as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 4, 3), (1, 12, 3)]);
    let hits = pattern("ÉTÉ", false, true)
        .search("un été".as_bytes(), None)
        .unwrap();
    assert!(hits.is_empty());
}

#[test]
fn literal_queries_escape_metacharacters() {
    let hits = pattern("a+(b)", false, true)
        .search(b"a+(b) aab", None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 5)]);
}

#[test]
fn empty_matches_advance_one_code_point_like_javascript() {
    let hits = pattern("a*", true, true).search(b"baaab", None).unwrap();
    assert_eq!(
        spots(&hits),
        vec![(1, 1, 0), (1, 2, 3), (1, 5, 0), (1, 6, 0)]
    );
    let hits = pattern("", false, true)
        .search("\u{1F600}\u{301}".as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 0), (1, 2, 0), (1, 3, 0)]);
}

#[test]
fn word_boundaries_are_ascii_and_run_over_any_text() {
    let hits = pattern(r"\bfoo\b", true, true)
        .search("éfoo foo_ (foo)".as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 2, 3), (1, 12, 3)]);
}

#[test]
fn limit_caps_the_matches() {
    let hits = pattern("a", false, true)
        .search(b"aaaa\naa", Some(3))
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 1), (1, 2, 1), (1, 3, 1)]);
    assert!(pattern("a", false, true)
        .search(b"aaaa", Some(0))
        .unwrap()
        .is_empty());
}

#[test]
fn look_around_and_backreferences_are_refused_by_name() {
    for query in ["(?=a)b", "a(?!b)", "(?<=a)b", "(?<!a)b"] {
        assert_eq!(
            refusal(query),
            SearchError::Unsupported {
                feature: "look-around"
            }
        );
    }
    for query in [r"(a)\1", r"(?<x>a)\k<x>"] {
        assert_eq!(
            refusal(query),
            SearchError::Unsupported {
                feature: "backreference"
            }
        );
    }
    let message = refusal("(?=a)").to_string();
    assert!(message.starts_with("unsupported look-around:"), "{message}");
    assert!(message.contains("linear time"), "{message}");
}

#[test]
fn malformed_and_oversized_patterns_are_refused() {
    match refusal("ab(") {
        SearchError::Syntax { at, message } => {
            assert_eq!(at, 2);
            assert!(message.contains("unclosed group"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(refusal(r"\w{1000}"), SearchError::TooLarge);
    assert_eq!(refusal(r"(?-u:\xFF)"), refusal(r"(?-u:\xFE)"));
    let deep = "(".repeat(10_000) + &")".repeat(10_000);
    assert!(matches!(refusal(&deep), SearchError::Syntax { .. }));
}

#[test]
fn nested_quantifiers_run_in_linear_time() {
    let mut text = "a".repeat(100_000);
    text.push('!');
    let hits = pattern("(a+)+$", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert!(hits.is_empty());
    text.pop();
    let hits = pattern("(a+)+$", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 100_000)]);
    let hits = pattern("(x+x+)+y", true, true)
        .search(text.as_bytes(), None)
        .unwrap();
    assert!(hits.is_empty());
}

#[test]
fn rescanning_patterns_exhaust_the_budget_instead_of_hanging() {
    let text = "ba".repeat(1_000_000);
    let refused = pattern("a|b.*z", true, true).search(text.as_bytes(), None);
    assert_eq!(refused, Err(SearchError::TooExpensive));
    let hits = pattern("a|b.*z", true, true)
        .search(text.as_bytes(), Some(3))
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 2, 1), (1, 4, 1), (1, 6, 1)]);
}

#[test]
fn replace_is_literal_and_may_span_lines() {
    let replaced = text_pattern("a\nb", false)
        .replace(b"a\nb a\nb", b"$1", None)
        .unwrap();
    assert_eq!(replaced, Some((b"$1 $1".to_vec(), 2)));
    let replaced = text_pattern("^x", true)
        .replace(b"x1\nx2\ny", b"-", Some(1))
        .unwrap();
    assert_eq!(replaced, Some((b"-1\nx2\ny".to_vec(), 1)));
    assert_eq!(
        text_pattern("q", false)
            .replace(b"abc", b"-", None)
            .unwrap(),
        None
    );
    let replaced = text_pattern("a*", true)
        .replace(b"baaab", b"-", None)
        .unwrap();
    assert_eq!(replaced, Some((b"-b--b-".to_vec(), 4)));
}

#[test]
fn lone_surrogates_count_as_one_code_point() {
    let text = b"a\xed\xa0\x80b\nx";
    let hits = pattern("b", false, true).search(text, None).unwrap();
    assert_eq!(
        hits,
        vec![Hit {
            line: 1,
            column: 3,
            length: 1,
            start: 0,
            end: 3,
            bytes: 0..5
        }]
    );
    assert_eq!(count_points(text), 5);
    let hits = pattern("", false, true)
        .search(b"\xed\xa0\x80", None)
        .unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 0), (1, 2, 0)]);
}

#[test]
fn locate_clamps_into_the_text() {
    let text = "ab\n\u{1F600}c\n".as_bytes();
    assert_eq!(
        locate(text, 1, 1),
        Located {
            line: 1,
            column: 1,
            offset: 0
        }
    );
    assert_eq!(
        locate(text, 2, 2),
        Located {
            line: 2,
            column: 2,
            offset: 4
        }
    );
    assert_eq!(
        locate(text, 2, 99),
        Located {
            line: 2,
            column: 3,
            offset: 5
        }
    );
    assert_eq!(
        locate(text, 3, 5),
        Located {
            line: 3,
            column: 1,
            offset: 6
        }
    );
    assert_eq!(
        locate(text, 9, 9),
        Located {
            line: 3,
            column: 1,
            offset: 6
        }
    );
    assert_eq!(
        locate(text, 0, 0),
        Located {
            line: 1,
            column: 1,
            offset: 0
        }
    );
    assert_eq!(
        locate(b"", 4, 4),
        Located {
            line: 1,
            column: 1,
            offset: 0
        }
    );
}

#[test]
fn a_bounded_replace_refuses_before_its_output_passes_the_bound() {
    let text = vec![b'a'; 4096];
    let replacement = vec![b'x'; 600];
    let every = text_pattern("", false);
    assert_eq!(
        every.replace_within(&text, &replacement, None, 1 << 20),
        Err(SearchError::Oversize)
    );
    let one = text_pattern("a", false);
    assert_eq!(
        one.replace_within(b"aaaa", b"bb", None, 8),
        Ok(Some((b"bbbbbbbb".to_vec(), 4)))
    );
    assert_eq!(
        one.replace_within(b"aaaa", b"bb", None, 7),
        Err(SearchError::Oversize)
    );
    assert_eq!(
        one.replace_within(b"aaaa", b"", None, 0),
        Ok(Some((Vec::new(), 4)))
    );
    assert_eq!(
        one.replace_within(b"aaaab", b"", None, 0),
        Err(SearchError::Oversize)
    );
    assert_eq!(one.replace_within(b"bbbb", b"x", None, 0), Ok(None));
}

#[test]
fn a_bounded_search_counts_each_hit_with_its_line() {
    let text = b"ab\nabc";
    let all = pattern("a", false, true);
    let (hits, spent) = all.search_within(text, None, 100, 10).unwrap();
    assert_eq!(spots(&hits), vec![(1, 1, 1), (2, 1, 1)]);
    assert_eq!(spent, (2 + 10) + (3 + 10));
    assert_eq!(
        all.search_within(text, None, 24, 10),
        Err(SearchError::Oversize)
    );
    assert_eq!(all.search_within(text, Some(1), 12, 10).unwrap().1, 12);
    let every = pattern("", false, true);
    let long = vec![b'a'; 1 << 16];
    assert_eq!(
        every.search_within(&long, None, 1 << 20, 64),
        Err(SearchError::Oversize)
    );
}
