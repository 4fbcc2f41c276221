//! Escapes: class escapes, assertions, backreferences (refused), octal, control, hex and
//! Unicode escapes, with Annex B identity escapes.

use super::class::class_escape;
use super::translate::{hex_value, invalid, unsupported, Translator};
use super::PatternError;

impl Translator {
    pub(super) fn escape(&mut self) -> Result<bool, PatternError> {
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
        if let Some(property) = self.property()? {
            self.out.push_str(&property);
            return Ok(true);
        }
        match char::from_u32(c).unwrap_or('\u{FFFD}') {
            'b' | 'B' => {
                self.at += 2;
                self.out.push_str(if c == u32::from(b'b') {
                    r"(?-u:\b)"
                } else {
                    r"(?-u:\B)"
                });
                Ok(false)
            }
            '1'..='9' => {
                if self.decimal_run() <= self.groups {
                    return unsupported(
                        "backreferences are not supported by the linear-time engine",
                    );
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
        while let Some(d) = self
            .peek(1 + width)
            .and_then(|c| char::from_u32(c)?.to_digit(10))
        {
            value = value.saturating_mul(10).saturating_add(d as usize);
            width += 1;
        }
        value
    }

    /// Annex B: `\8`/`\9` are the digits themselves, `\1`–`\7` start an octal escape.
    pub(super) fn legacy_octal_or_digit(&mut self) -> u32 {
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
    pub(super) fn character_escape(&mut self) -> Result<u32, PatternError> {
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
            '0' if !self
                .peek(2)
                .is_some_and(|d| char::from_u32(d).is_some_and(|d| d.is_ascii_digit())) =>
            {
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
            'x' => match (
                self.peek(2).and_then(hex_value),
                self.peek(3).and_then(hex_value),
            ) {
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
        (0..4).try_fold(0u32, |acc, i| {
            Some(acc * 16 + self.peek(offset + i).and_then(hex_value)?)
        })
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
}
