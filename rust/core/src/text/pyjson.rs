//! The lengths of the text Python's `json.dumps` writes with its default options
//! (`ensure_ascii=True`, `allow_nan=True`, `", "` and `": "` separators), so a byte cap can be
//! measured without building the text.

/// The length of `repr(value)` for a Python float, which is what `json.dumps` writes for a
/// finite float; `NaN`, `Infinity` and `-Infinity` for the others.
///
/// Python's repr is the shortest decimal that reads back as the same double, written in
/// positional form when the decimal exponent lies in `[-4, 16)` (with `.0` after a whole
/// number) and as `d.ddde±XX` otherwise; Rust's `{:e}` gives the same shortest digits.
pub fn float_repr_len(value: f64) -> usize {
    if value.is_nan() {
        return 3;
    }
    if value.is_infinite() {
        return if value > 0.0 { 8 } else { 9 };
    }
    let sign = usize::from(value.is_sign_negative());
    if value == 0.0 {
        return sign + 3;
    }
    let text = format!("{:e}", value.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let point = exponent + 1;
    let body = if (-3..=16).contains(&point) {
        let digits = i64::try_from(digits).unwrap_or(i64::MAX);
        if point <= 0 {
            2 - point + digits
        } else if point >= digits {
            point + 2
        } else {
            digits + 1
        }
    } else {
        let shown = exponent.unsigned_abs().to_string().len().max(2);
        let shown = i64::try_from(shown).unwrap_or(2);
        let digits = i64::try_from(digits).unwrap_or(1);
        digits + i64::from(digits > 1) + 2 + shown
    };
    sign + usize::try_from(body).unwrap_or(0)
}

/// The length of the decimal text of a 64-bit integer.
pub fn int_len(value: i64) -> usize {
    let sign = usize::from(value < 0);
    let mut magnitude = value.unsigned_abs();
    let mut digits = 1;
    while magnitude >= 10 {
        magnitude /= 10;
        digits += 1;
    }
    sign + digits
}

/// The length of a string as `json.dumps` quotes it with `ensure_ascii=True`, from its WTF-8
/// bytes: printable ASCII as is, `"` `\` and the five short escapes in two characters, every
/// other code point below U+10000 as `\uXXXX` and the rest as a surrogate pair of those.
pub fn string_len(bytes: &[u8]) -> usize {
    let mut size = 2;
    for &byte in bytes {
        size += match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0C => 2,
            0x20..=0x7E => 1,
            0x00..=0x1F | 0x7F => 6,
            0x80..=0xBF => 0,
            0xC0..=0xEF => 6,
            _ => 12,
        };
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_measure_as_python_writes_them() {
        for (value, text) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (2.5, "2.5"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123456789.125, "123456789.125"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e16, "1e+16"),
            (1.25e16, "1.25e+16"),
            (1e100, "1e+100"),
            (-1.7976931348623157e308, "-1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(float_repr_len(value), text.len(), "{text}");
        }
    }

    #[test]
    fn integers_and_strings() {
        assert_eq!(int_len(0), 1);
        assert_eq!(int_len(-7), 2);
        assert_eq!(int_len(i64::MIN), "-9223372036854775808".len());
        assert_eq!(int_len(i64::MAX), 19);
        assert_eq!(string_len(b""), 2);
        assert_eq!(string_len(b"ab"), 4);
        assert_eq!(string_len(b"a\"\\\n\x01\x7f"), 2 + 1 + 2 + 2 + 2 + 6 + 6);
        assert_eq!(string_len("é".as_bytes()), 8);
        assert_eq!(string_len("€".as_bytes()), 8);
        assert_eq!(string_len("😀".as_bytes()), 14);
        assert_eq!(string_len(&[0xED, 0xA0, 0x80]), 8); // a lone surrogate in WTF-8
    }
}
