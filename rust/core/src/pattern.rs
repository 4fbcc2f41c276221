//! ECMAScript patterns (no flags) on a linear-time engine: the source is translated to
//! the `regex` crate's dialect (`\d` ASCII, `\s` the JavaScript whitespace set, `.` without
//! line terminators). Look-around and backreferences have no linear-time equivalent and
//! are refused as unsupported.

use std::fmt::Write;

use regex::bytes::{Regex, RegexBuilder};

use crate::text::code_points;

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

const SPACE_CLASS: &str =
    r"\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const WORD_CLASS: &str = "0-9A-Za-z_";
const DIGIT_CLASS: &str = "0-9";

/// A character class escape (`\d`, `\s`, `\w` and their negations) as class content.
fn class_escape(c: u32) -> Option<(&'static str, bool)> {
    match char::from_u32(c)? {
        'd' => Some((DIGIT_CLASS, false)),
        'D' => Some((DIGIT_CLASS, true)),
        's' => Some((SPACE_CLASS, false)),
        'S' => Some((SPACE_CLASS, true)),
        'w' => Some((WORD_CLASS, false)),
        'W' => Some((WORD_CLASS, true)),
        _ => None,
    }
}

/// Translates an ECMAScript pattern to the `regex` crate's syntax.
pub fn translate(source: &[u8]) -> Result<String, PatternError> {
    let chars: Vec<u32> = code_points(source).collect();
    Translator::new(chars).run()
}

struct Translator {
    chars: Vec<u32>,
    at: usize,
    out: String,
    groups: usize,
    named: bool,
}

fn invalid<T>(reason: &str) -> Result<T, PatternError> {
    Err(PatternError::Invalid(reason.to_owned()))
}

fn unsupported<T>(reason: &str) -> Result<T, PatternError> {
    Err(PatternError::Unsupported(reason.to_owned()))
}

fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

fn hex_value(c: u32) -> Option<u32> {
    char::from_u32(c)?.to_digit(16)
}

impl Translator {
    fn new(chars: Vec<u32>) -> Self {
        let (groups, named) = count_groups(&chars);
        Translator {
            chars,
            at: 0,
            out: String::new(),
            groups,
            named,
        }
    }

    fn peek(&self, offset: usize) -> Option<u32> {
        self.chars.get(self.at + offset).copied()
    }

    fn is(&self, offset: usize, c: char) -> bool {
        self.peek(offset) == Some(c as u32)
    }

    fn run(mut self) -> Result<String, PatternError> {
        let mut depth = 0usize;
        let mut quantifiable = false;
        while let Some(c) = self.peek(0) {
            match char::from_u32(c).unwrap_or('\u{FFFD}') {
                '(' => {
                    self.group()?;
                    depth += 1;
                    quantifiable = false;
                }
                ')' => {
                    if depth == 0 {
                        return invalid("unmatched ')'");
                    }
                    depth -= 1;
                    self.out.push(')');
                    self.at += 1;
                    quantifiable = true;
                }
                '|' => {
                    self.out.push('|');
                    self.at += 1;
                    quantifiable = false;
                }
                '^' | '$' => {
                    self.out.push(char::from_u32(c).unwrap_or('^'));
                    self.at += 1;
                    quantifiable = false;
                }
                '*' | '+' | '?' => {
                    if !quantifiable {
                        return invalid("nothing to repeat");
                    }
                    self.out.push(char::from_u32(c).unwrap_or('*'));
                    self.at += 1;
                    self.lazy();
                    quantifiable = false;
                }
                '{' => match self.braced()? {
                    Some(text) => {
                        if !quantifiable {
                            return invalid("nothing to repeat");
                        }
                        self.out.push_str(&text);
                        self.lazy();
                        quantifiable = false;
                    }
                    None => {
                        self.literal(c);
                        self.at += 1;
                        quantifiable = true;
                    }
                },
                '.' => {
                    self.out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                    self.at += 1;
                    quantifiable = true;
                }
                '[' => {
                    self.class()?;
                    quantifiable = true;
                }
                '\\' => quantifiable = self.escape()?,
                _ => {
                    self.literal(c);
                    self.at += 1;
                    quantifiable = true;
                }
            }
        }
        if depth != 0 {
            return invalid("unterminated group");
        }
        Ok(self.out)
    }

    fn lazy(&mut self) {
        if self.is(0, '?') {
            self.out.push('?');
            self.at += 1;
        }
    }

    fn group(&mut self) -> Result<(), PatternError> {
        self.at += 1;
        if !self.is(0, '?') {
            self.out.push_str("(?:");
            return Ok(());
        }
        match (self.peek(1), self.peek(2)) {
            (Some(0x3A), _) => {
                self.at += 2;
                self.out.push_str("(?:");
                Ok(())
            }
            (Some(0x3D | 0x21), _) | (Some(0x3C), Some(0x3D | 0x21)) => {
                unsupported("look-around assertions are not supported by the linear-time engine")
            }
            (Some(0x3C), _) => {
                let mut end = self.at + 2;
                while end < self.chars.len() && self.chars[end] != u32::from(b'>') {
                    end += 1;
                }
                if end >= self.chars.len() || end == self.at + 2 {
                    return invalid("invalid capture group name");
                }
                self.at = end + 1;
                self.out.push_str("(?:");
                Ok(())
            }
            _ => self.modifiers(),
        }
    }

    fn modifiers(&mut self) -> Result<(), PatternError> {
        let mut end = self.at + 1;
        let mut text = String::from("(?");
        while let Some(&c) = self.chars.get(end) {
            match char::from_u32(c) {
                Some('i') | Some('-') => text.push(char::from_u32(c).unwrap_or('i')),
                Some(':') => {
                    text.push(':');
                    self.at = end + 1;
                    self.out.push_str(&text);
                    return Ok(());
                }
                Some('m') | Some('s') => {
                    return unsupported("only the `i` pattern modifier is supported");
                }
                _ => break,
            }
            end += 1;
        }
        invalid("invalid group")
    }

    /// A braced quantifier at `{`, as regex text; `None` when the brace is a literal.
    fn braced(&mut self) -> Result<Option<String>, PatternError> {
        let mut end = self.at + 1;
        let digits = |end: &mut usize| {
            let start = *end;
            let mut value: u64 = 0;
            while let Some(d) = self.chars.get(*end).and_then(|&c| char::from_u32(c)?.to_digit(10)) {
                value = value.saturating_mul(10).saturating_add(u64::from(d));
                *end += 1;
            }
            (*end > start).then_some(value)
        };
        let Some(low) = digits(&mut end) else {
            return Ok(None);
        };
        let mut high = Some(low);
        if self.chars.get(end) == Some(&u32::from(b',')) {
            end += 1;
            high = digits(&mut end);
        }
        if self.chars.get(end) != Some(&u32::from(b'}')) {
            return Ok(None);
        }
        if high.is_some_and(|h| h < low) {
            return invalid("numbers out of order in quantifier");
        }
        self.at = end + 1;
        Ok(Some(match high {
            Some(h) if h == low => format!("{{{low}}}"),
            Some(h) => format!("{{{low},{h}}}"),
            None => format!("{{{low},}}"),
        }))
    }

    fn literal(&mut self, c: u32) {
        if is_surrogate(c) {
            let mut bytes = Vec::new();
            crate::text::push_code_point(&mut bytes, c);
            self.out.push_str("(?-u:");
            for b in bytes {
                let _ = write!(self.out, "\\x{b:02X}");
            }
            self.out.push(')');
        } else if char::from_u32(c).is_some_and(|ch| ch.is_ascii_alphanumeric()) {
            self.out.push(char::from_u32(c).unwrap_or('_'));
        } else {
            let _ = write!(self.out, "\\x{{{c:X}}}");
        }
    }

    /// An escape outside a class; returns whether it can be quantified.
    fn escape(&mut self) -> Result<bool, PatternError> {
        let Some(c) = self.peek(1) else {
            return invalid("\\ at end of pattern");
        };
        if let Some((class, negated)) = class_escape(c) {
            self.at += 2;
            self.out.push_str(if negated { "[^" } else { "[" });
            self.out.push_str(class);
            self.out.push(']');
            return Ok(true);
        }
        match char::from_u32(c).unwrap_or('\u{FFFD}') {
            'b' | 'B' => {
                self.at += 2;
                self.out.push_str(if c == u32::from(b'b') { r"(?-u:\b)" } else { r"(?-u:\B)" });
                Ok(false)
            }
            '1'..='9' => {
                if self.decimal_run() <= self.groups {
                    return unsupported("backreferences are not supported by the linear-time engine");
                }
                let unit = self.legacy_octal_or_digit();
                self.literal(unit);
                Ok(true)
            }
            'k' if self.named => {
                unsupported("backreferences are not supported by the linear-time engine")
            }
            _ => {
                let unit = self.character_escape()?;
                self.literal(unit);
                Ok(true)
            }
        }
    }

    fn decimal_run(&self) -> usize {
        let mut value = 0usize;
        let mut width = 0;
        while let Some(d) = self.peek(1 + width).and_then(|c| char::from_u32(c)?.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d as usize);
            width += 1;
        }
        value
    }

    /// Annex B: `\8`/`\9` are the digits themselves, `\1`–`\7` start an octal escape.
    fn legacy_octal_or_digit(&mut self) -> u32 {
        let first = self.peek(1).unwrap_or(0);
        if first == u32::from(b'8') || first == u32::from(b'9') {
            self.at += 2;
            return first;
        }
        self.at += 1;
        self.octal()
    }

    fn octal(&mut self) -> u32 {
        let mut value = 0u32;
        let mut width = 0;
        while width < 3 {
            match self.peek(0).and_then(|c| char::from_u32(c)?.to_digit(8)) {
                Some(d) if value * 8 + d <= 0o377 => {
                    value = value * 8 + d;
                    self.at += 1;
                    width += 1;
                }
                _ => break,
            }
        }
        value
    }

    /// A character escape at `\` that denotes one code unit (pairs are joined).
    fn character_escape(&mut self) -> Result<u32, PatternError> {
        let Some(c) = self.peek(1) else {
            return invalid("\\ at end of pattern");
        };
        let ch = char::from_u32(c).unwrap_or('\u{FFFD}');
        let simple = match ch {
            't' => Some(0x09),
            'n' => Some(0x0A),
            'v' => Some(0x0B),
            'f' => Some(0x0C),
            'r' => Some(0x0D),
            _ => None,
        };
        if let Some(unit) = simple {
            self.at += 2;
            return Ok(unit);
        }
        match ch {
            '0' if !self.peek(2).is_some_and(|d| char::from_u32(d).is_some_and(|d| d.is_ascii_digit())) => {
                self.at += 2;
                Ok(0)
            }
            '0'..='7' => {
                self.at += 1;
                Ok(self.octal())
            }
            'c' => match self.peek(2).and_then(char::from_u32) {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.at += 3;
                    Ok(u32::from(letter) % 32)
                }
                _ => {
                    self.at += 1;
                    Ok(u32::from(b'\\'))
                }
            },
            'x' => match (self.peek(2).and_then(hex_value), self.peek(3).and_then(hex_value)) {
                (Some(a), Some(b)) => {
                    self.at += 4;
                    Ok(a * 16 + b)
                }
                _ => {
                    self.at += 2;
                    Ok(c)
                }
            },
            'u' => Ok(self.unicode_escape()),
            _ => {
                self.at += 2;
                Ok(c)
            }
        }
    }

    fn hex4(&self, offset: usize) -> Option<u32> {
        (0..4).try_fold(0u32, |acc, i| Some(acc * 16 + self.peek(offset + i).and_then(hex_value)?))
    }

    fn unicode_escape(&mut self) -> u32 {
        let Some(unit) = self.hex4(2) else {
            self.at += 2;
            return u32::from(b'u');
        };
        self.at += 6;
        if (0xD800..0xDC00).contains(&unit) && self.is(0, '\\') && self.is(1, 'u') {
            if let Some(low) = self.hex4(2).filter(|l| (0xDC00..0xE000).contains(l)) {
                self.at += 6;
                return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            }
        }
        unit
    }

    fn class(&mut self) -> Result<(), PatternError> {
        self.at += 1;
        let negated = self.is(0, '^');
        if negated {
            self.at += 1;
        }
        let mut body = String::new();
        loop {
            let Some(c) = self.peek(0) else {
                return invalid("unterminated character class");
            };
            if c == u32::from(b']') {
                self.at += 1;
                break;
            }
            let atom = self.class_atom()?;
            let is_range = self.is(0, '-') && !self.is(1, ']') && self.peek(1).is_some();
            match atom {
                ClassAtom::Unit(low) if is_range => {
                    self.at += 1;
                    match self.class_atom()? {
                        ClassAtom::Unit(high) => {
                            if high < low {
                                return invalid("range out of order in character class");
                            }
                            push_class_range(&mut body, low, high)?;
                        }
                        ClassAtom::Set(text) => {
                            push_class_range(&mut body, low, low)?;
                            push_class_range(&mut body, u32::from(b'-'), u32::from(b'-'))?;
                            body.push_str(&text);
                        }
                    }
                }
                ClassAtom::Unit(unit) => push_class_range(&mut body, unit, unit)?,
                ClassAtom::Set(text) => body.push_str(&text),
            }
        }
        if body.is_empty() {
            self.out.push_str(if negated { r"[\x{0}-\x{10FFFF}]" } else { r"[^\x{0}-\x{10FFFF}]" });
        } else {
            self.out.push_str(if negated { "[^" } else { "[" });
            self.out.push_str(&body);
            self.out.push(']');
        }
        Ok(())
    }

    fn class_atom(&mut self) -> Result<ClassAtom, PatternError> {
        let c = self.peek(0).unwrap_or(0);
        if c != u32::from(b'\\') {
            self.at += 1;
            return Ok(ClassAtom::Unit(c));
        }
        let Some(next) = self.peek(1) else {
            return invalid("\\ at end of pattern");
        };
        if let Some((class, negated)) = class_escape(next) {
            self.at += 2;
            return Ok(ClassAtom::Set(if negated {
                format!("[^{class}]")
            } else {
                class.to_owned()
            }));
        }
        if next == u32::from(b'b') {
            self.at += 2;
            return Ok(ClassAtom::Unit(0x08));
        }
        if next == u32::from(b'-') {
            self.at += 2;
            return Ok(ClassAtom::Unit(next));
        }
        if (u32::from(b'1')..=u32::from(b'9')).contains(&next) {
            return Ok(ClassAtom::Unit(self.legacy_octal_or_digit()));
        }
        Ok(ClassAtom::Unit(self.character_escape()?))
    }
}

enum ClassAtom {
    Unit(u32),
    Set(String),
}

fn push_class_range(body: &mut String, low: u32, high: u32) -> Result<(), PatternError> {
    if is_surrogate(low) || is_surrogate(high) {
        return unsupported("a lone surrogate in a character class is not supported");
    }
    if low == high {
        let _ = write!(body, "\\x{{{low:X}}}");
    } else {
        let _ = write!(body, "\\x{{{low:X}}}-\\x{{{high:X}}}");
    }
    Ok(())
}

/// Counts capturing groups, and whether any is named, outside classes and escapes.
fn count_groups(chars: &[u32]) -> (usize, bool) {
    let mut groups = 0;
    let mut named = false;
    let mut in_class = false;
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c == u32::from(b'\\') {
            at += 2;
            continue;
        }
        if in_class {
            in_class = c != u32::from(b']');
        } else if c == u32::from(b'[') {
            in_class = true;
        } else if c == u32::from(b'(') {
            let next = chars.get(at + 1).copied();
            if next != Some(u32::from(b'?')) {
                groups += 1;
            } else if chars.get(at + 2) == Some(&u32::from(b'<'))
                && !matches!(chars.get(at + 3).copied(), Some(0x3D | 0x21))
            {
                groups += 1;
                named = true;
            }
        }
        at += 1;
    }
    (groups, named)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for source in [r"(?=a)", r"(?!a)", r"(?<=a)b", r"(?<!a)b", r"(a)\1", r"(?<n>a)\k<n>"] {
            assert!(
                matches!(Pattern::compile(source.as_bytes()), Err(PatternError::Unsupported(_))),
                "{source}"
            );
        }
        for source in ["(", ")", "[a", "*", "a**", r"\", "[z-a]", "a{2,1}", "(?x)"] {
            assert!(
                matches!(Pattern::compile(source.as_bytes()), Err(PatternError::Invalid(_))),
                "{source}"
            );
        }
    }
}
