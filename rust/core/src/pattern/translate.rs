//! The translator's main loop: groups, quantifiers, alternation, anchors and literals.

use std::fmt::Write;

use super::PatternError;
use crate::text::code_points;

/// Translates an ECMAScript pattern to the `regex` crate's syntax.
pub fn translate(source: &[u8]) -> Result<String, PatternError> {
    let chars: Vec<u32> = code_points(source).collect();
    Translator::new(chars).run()
}

pub(super) struct Translator {
    pub(super) chars: Vec<u32>,
    pub(super) at: usize,
    pub(super) out: String,
    pub(super) groups: usize,
    pub(super) named: bool,
}

pub(super) fn invalid<T>(reason: &str) -> Result<T, PatternError> {
    Err(PatternError::Invalid(reason.to_owned()))
}

pub(super) fn unsupported<T>(reason: &str) -> Result<T, PatternError> {
    Err(PatternError::Unsupported(reason.to_owned()))
}

pub(super) fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

pub(super) fn hex_value(c: u32) -> Option<u32> {
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

    pub(super) fn peek(&self, offset: usize) -> Option<u32> {
        self.chars.get(self.at + offset).copied()
    }

    pub(super) fn is(&self, offset: usize, c: char) -> bool {
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
            while let Some(d) = self
                .chars
                .get(*end)
                .and_then(|&c| char::from_u32(c)?.to_digit(10))
            {
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

    pub(super) fn literal(&mut self, c: u32) {
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
