//! The ECMAScript dialect on the linear-time engine.

use super::{Pattern, PatternError};

fn matches(pattern: &str, text: &str) -> bool {
    Pattern::compile(pattern.as_bytes())
        .unwrap_or_else(|e| panic!("{pattern}: {e:?}"))
        .is_match(text.as_bytes())
}

#[test]
fn follows_the_javascript_dialect() {
    assert!(matches(r"^\d+$", "123"));
    assert!(!matches(r"^\d+$", "١٢٣"));
    assert!(matches(r"^\s$", "\u{feff}"));
    assert!(!matches(r"^\s$", "\u{85}"));
    assert!(!matches(r"^.$", "\n"));
    assert!(matches(r"^.$", "é"));
    assert!(matches("x", "axb"));
    assert!(matches(r"^a{2}$", "aa"));
    assert!(matches(r"^a{$", "a{"));
    assert!(matches(r"^[a-c\d-]+$", "a1-b"));
    assert!(matches(r"^[\w]+$", "abc_9"));
    assert!(matches(r"^\x41\u0042\103$", "ABC"));
    assert!(matches(r"^\uD83D\uDE00$", "😀"));
    assert!(matches(r"^[^]$", "z"));
    assert!(!matches(r"[]", "z"));
    assert!(matches(r"^(a|b)+(?:c)$", "abc"));
    assert!(matches(r"^(?<name>a)$", "a"));
    assert!(matches(r"\bword\b", "a word here"));
    assert!(matches(r"^\/\.\]$", "/.]"));
    assert!(matches(r"^(?i:abc)$", "ABC"));
    assert!(matches(r"^\8$", "8"));
}

#[test]
fn refuses_what_it_cannot_run() {
    for source in [
        r"(?=a)",
        r"(?!a)",
        r"(?<=a)b",
        r"(?<!a)b",
        r"(a)\1",
        r"(?<n>a)\k<n>",
    ] {
        assert!(
            matches!(
                Pattern::compile(source.as_bytes()),
                Err(PatternError::Unsupported(_))
            ),
            "{source}"
        );
    }
    for source in ["(", ")", "[a", "*", "a**", r"\", "[z-a]", "a{2,1}", "(?x)"] {
        assert!(
            matches!(
                Pattern::compile(source.as_bytes()),
                Err(PatternError::Invalid(_))
            ),
            "{source}"
        );
    }
}

#[test]
fn small_patterns_get_a_dense_automaton() {
    let pattern = Pattern::compile(b"^[0-9a-f-]{36}$").expect("compiles");
    assert!(pattern.has_dense());
    assert!(pattern.is_match(b"9b2e8f14-3c7a-4d21-9f6e-2a1b8c4d5e6f"));
    assert!(!pattern.is_match(b"9b2e8f14-3c7a-4d21-9f6e-2a1b8c4d5e6"));
}

#[test]
fn whole_string_class_patterns_take_the_table_path() {
    for (source, yes, no) in [
        ("^[0-9a-f-]{3}$", "a-1", "a-1x"),
        (r"^\d+$", "123", "12a"),
        ("^[A-Z]*$", "", "aB"),
        ("^[a-c]{2,3}$", "abc", "a"),
        ("^[^a]+$", "bcd", "bad"),
    ] {
        let pattern = Pattern::compile(source.as_bytes()).expect("compiles");
        assert!(pattern.is_match(yes.as_bytes()), "{source} {yes}");
        assert!(!pattern.is_match(no.as_bytes()), "{source} {no}");
    }
    assert!(!Pattern::compile(b"^[a-z]+$")
        .expect("compiles")
        .is_match("ébc".as_bytes()));
}

#[test]
fn unicode_property_classes_read_as_json_schema_reads_them() {
    assert!(matches(r"^\p{Letter}+$", "héllo"));
    assert!(!matches(r"^\p{Letter}+$", "p{Letter}"));
    assert!(matches(r"^\p{L}$", "ж"));
    assert!(matches(r"^\P{L}$", "7"));
    assert!(matches(r"^[\p{Lu}\d]+$", "AÉ9"));
    assert!(!matches(r"^[^\p{Lu}]$", "É"));
    assert!(matches(r"^\p{Script=Greek}$", "α"));
    assert!(matches(r"^\p{General_Category=Decimal_Number}$", "٣"));
    assert!(matches(r"^\p$", "p"));
    match Pattern::compile(br"\p{NoSuchProperty}") {
        Err(PatternError::Unsupported(reason)) => assert_eq!(
            reason,
            r"the Unicode property class \p{NoSuchProperty} is not supported"
        ),
        other => panic!("{other:?}"),
    }
}
