//! String format detection (spec §9.7): uuid, date-time, date, time, email and uri.

use super::limits::FORMAT_MAX_LENGTH;
use super::text::utf16_len;
use crate::text::is_js_space;

/// A detected string format, in the precedence order the detector tries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Uuid,
    DateTime,
    Date,
    Time,
    Email,
    Uri,
}

impl Format {
    /// Every format, in detection order.
    pub const ALL: [Format; 6] = [
        Format::Uuid,
        Format::DateTime,
        Format::Date,
        Format::Time,
        Format::Email,
        Format::Uri,
    ];

    /// The JSON Schema spelling.
    pub fn name(self) -> &'static str {
        match self {
            Format::Uuid => "uuid",
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Email => "email",
            Format::Uri => "uri",
        }
    }

    /// A stable small code for serialised state.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The format with the given [`Format::code`].
    pub fn from_code(code: u8) -> Option<Format> {
        Format::ALL.get(usize::from(code)).copied()
    }
}

/// Classifies a string; the first matching rule wins.
pub fn string_to_format(text: &[u8]) -> Option<Format> {
    if text.len() > FORMAT_MAX_LENGTH * 3 || utf16_len(text) > FORMAT_MAX_LENGTH {
        return None;
    }
    if is_uuid(text) {
        Some(Format::Uuid)
    } else if is_date_time(text) {
        Some(Format::DateTime)
    } else if is_date(text) {
        Some(Format::Date)
    } else if is_time(text) {
        Some(Format::Time)
    } else if is_email(text) {
        Some(Format::Email)
    } else if is_uri(text) {
        Some(Format::Uri)
    } else {
        None
    }
}

fn is_uuid(text: &[u8]) -> bool {
    text.len() == 36
        && text.iter().enumerate().all(|(i, &b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

/// Reads `n` ASCII digits at `at` as a number.
fn digits(text: &[u8], at: usize, n: usize) -> Option<u32> {
    let part = text.get(at..at + n)?;
    part.iter().try_fold(0u32, |acc, &b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}

fn valid_date(year: u32, month: u32, day: u32) -> bool {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// Parses `YYYY-MM-DD` at the start and checks it names a real day.
fn date_part(text: &[u8]) -> bool {
    if text.get(4) != Some(&b'-') || text.get(7) != Some(&b'-') {
        return false;
    }
    match (digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2)) {
        (Some(y), Some(m), Some(d)) => valid_date(y, m, d),
        _ => false,
    }
}

/// Parses `HH:MM:SS(.f+)?(Z|±HH:MM)` filling the whole of `text`, with valid clock fields.
fn time_part(text: &[u8], offset_required: bool) -> bool {
    if text.get(2) != Some(&b':') || text.get(5) != Some(&b':') {
        return false;
    }
    let clock = match (digits(text, 0, 2), digits(text, 3, 2), digits(text, 6, 2)) {
        (Some(h), Some(m), Some(s)) => h <= 23 && m <= 59 && s <= 59,
        _ => false,
    };
    if !clock {
        return false;
    }
    let mut i = 8;
    if text.get(i) == Some(&b'.') {
        let run = text[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if run == 0 {
            return false;
        }
        i += 1 + run;
    }
    match text.get(i) {
        Some(b'Z') => i + 1 == text.len(),
        Some(b'+' | b'-') => {
            i + 6 == text.len()
                && text[i + 3] == b':'
                && matches!(
                    (digits(text, i + 1, 2), digits(text, i + 4, 2)),
                    (Some(h), Some(m)) if h <= 23 && m <= 59
                )
        }
        None => !offset_required,
        _ => false,
    }
}

fn is_date_time(text: &[u8]) -> bool {
    text.len() > 11 && text[10] == b'T' && date_part(text) && time_part(&text[11..], true)
}

fn is_date(text: &[u8]) -> bool {
    text.len() == 10 && date_part(text)
}

fn is_time(text: &[u8]) -> bool {
    time_part(text, true)
}

/// Whether the text holds a JavaScript whitespace character (ASCII fast path).
fn has_space(text: &[u8]) -> bool {
    if text.is_ascii() {
        return text.iter().any(|&b| is_js_space(u32::from(b)));
    }
    String::from_utf8_lossy(text)
        .chars()
        .any(|c| is_js_space(u32::from(c)))
}

/// `^[^\s@]+@[^\s@]+\.[^\s@]+$`: one `@`, no whitespace, and a dot inside the domain.
fn is_email(text: &[u8]) -> bool {
    let Some(at) = text.iter().position(|&b| b == b'@') else {
        return false;
    };
    let domain = &text[at + 1..];
    if at == 0 || domain.contains(&b'@') || has_space(text) {
        return false;
    }
    domain.len() >= 3 && domain[1..domain.len() - 1].contains(&b'.')
}

/// `^[a-z][a-z0-9+.-]*:\/\/` without case: a scheme followed by `://`.
fn is_uri(text: &[u8]) -> bool {
    if !text.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let scheme = text[1..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        .count();
    text[1 + scheme..].starts_with(b"://")
}

/// Whether `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS(.f)?(Z|±HH:MM)?` names a real instant.
pub fn is_valid_iso_instant(text: &[u8]) -> bool {
    if text.len() == 10 {
        return date_part(text);
    }
    text.len() > 11 && text[10] == b'T' && date_part(text) && time_part(&text[11..], false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str) -> Option<&'static str> {
        string_to_format(s.as_bytes()).map(Format::name)
    }

    #[test]
    fn detects_each_format() {
        assert_eq!(fmt("550e8400-e29b-41d4-a716-446655440000"), Some("uuid"));
        assert_eq!(fmt("9B2E8F14-3C7A-4D21-9F6E-2A1B8C4D5E6F"), Some("uuid"));
        assert_eq!(fmt("2024-01-15T10:30:00Z"), Some("date-time"));
        assert_eq!(fmt("2024-02-29T23:59:59.123+02:00"), Some("date-time"));
        assert_eq!(fmt("2024-01-15t10:30:00z"), None);
        assert_eq!(fmt("2024-01-01T24:00:00Z"), None);
        assert_eq!(fmt("2024-01-01T00:00:00."), None);
        assert_eq!(fmt("2024-01-01T00:00:00+24:00"), None);
        assert_eq!(fmt("2024-01-01T00:00:00-00:00"), Some("date-time"));
        assert_eq!(fmt("2024-13-01T00:00:00Z"), None);
        assert_eq!(fmt("2000-02-29"), Some("date"));
        assert_eq!(fmt("0000-02-29"), Some("date"));
        assert_eq!(fmt("1900-02-29"), None);
        assert_eq!(fmt("2400-02-29"), Some("date"));
        assert_eq!(fmt("2024-02-30"), None);
        assert_eq!(fmt("10:30:00"), None);
        assert_eq!(fmt("10:30:00Z"), Some("time"));
        assert_eq!(fmt("24:00:00Z"), None);
        assert_eq!(fmt("ada@example.com"), Some("email"));
        assert_eq!(fmt("mailto:x@y.z"), Some("email"));
        assert_eq!(fmt("a b@c.d"), None);
        assert_eq!(fmt("a@.b"), None);
        assert_eq!(fmt("a@b."), None);
        assert_eq!(fmt("bad@"), None);
        assert_eq!(fmt("http://"), Some("uri"));
        assert_eq!(fmt("ftp://x"), Some("uri"));
        assert_eq!(fmt("urn:isbn:1"), None);
        assert_eq!(fmt(""), None);
        assert_eq!(fmt(&format!("a@b.{}", "c".repeat(125))), None);
        assert_eq!(fmt(&format!("a@b.{}", "c".repeat(124))), Some("email"));
    }
}
