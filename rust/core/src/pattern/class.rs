//! Character classes, with `\d`, `\s` and `\w` expanded to their JavaScript sets.

use std::fmt::Write;

use super::translate::{invalid, is_surrogate, unsupported, Translator};
use super::PatternError;

const SPACE_CLASS: &str = r"\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
const WORD_CLASS: &str = "0-9A-Za-z_";
const DIGIT_CLASS: &str = "0-9";

/// A character class escape (`\d`, `\s`, `\w` and their negations) as class content.
pub(super) fn class_escape(c: u32) -> Option<(&'static str, bool)> {
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

impl Translator {
    pub(super) fn class(&mut self) -> Result<(), PatternError> {
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
            self.out.push_str(if negated {
                r"[\x{0}-\x{10FFFF}]"
            } else {
                r"[^\x{0}-\x{10FFFF}]"
            });
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
        if let Some(property) = self.property()? {
            return Ok(ClassAtom::Set(property));
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

impl Translator {
    /// A Unicode property class at `\`, `\p{Name}` or `\P{Name}`, read as JSON Schema reads
    /// patterns (ECMAScript's unicode mode); `None` when the escape is not one. A property the
    /// engine does not know is refused, naming it.
    pub(super) fn property(&mut self) -> Result<Option<String>, PatternError> {
        let negated = match self.peek(1).and_then(char::from_u32) {
            Some('p') => false,
            Some('P') => true,
            _ => return Ok(None),
        };
        if !self.is(2, '{') {
            return Ok(None);
        }
        let mut name = String::new();
        let mut end = self.at + 3;
        while let Some(c) = self.chars.get(end).copied().and_then(char::from_u32) {
            if c == '}' {
                break;
            }
            if !(c.is_ascii_alphanumeric() || c == '_' || c == '=') {
                return Ok(None);
            }
            name.push(c);
            end += 1;
        }
        if end >= self.chars.len() || name.is_empty() {
            return Ok(None);
        }
        let text = format!("\\{}{{{name}}}", if negated { 'P' } else { 'p' });
        if regex_syntax::Parser::new().parse(&text).is_err() {
            return Err(PatternError::Unsupported(format!(
                "the Unicode property class {text} is not supported"
            )));
        }
        self.at = end + 1;
        Ok(Some(text))
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
