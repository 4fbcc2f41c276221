//! ECMAScript number text: `String(number)` and `Number(string)`.

use crate::constants::MAX_SAFE_INTEGER;

/// Formats a double as ECMAScript `Number::toString` does (`1e21` → `"1e+21"`, `-0` → `"0"`).
pub fn number_to_string(value: f64) -> String {
    let mut out = Vec::with_capacity(24);
    push_number(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

/// Appends ECMAScript `String(value)`: shortest round-trip digits, exponent form outside
/// `[1e-6, 1e21)`, and `-0` written as `0`.
pub fn push_number(out: &mut Vec<u8>, value: f64) {
    if value.is_nan() {
        out.extend_from_slice(b"NaN");
        return;
    }
    if value.is_infinite() {
        out.extend_from_slice(if value > 0.0 {
            b"Infinity".as_slice()
        } else {
            b"-Infinity"
        });
        return;
    }
    if value == 0.0 {
        out.push(b'0');
        return;
    }
    if is_safe_integer(value) {
        let integer = value as i64;
        if integer < 0 {
            out.push(b'-');
        }
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = integer.unsigned_abs();
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        out.extend_from_slice(&digits[at..]);
        return;
    }
    // Between 1e-6 and 1e21 ECMAScript writes plain decimals, as Rust's shortest `Display` does.
    if (1e-6..1e21).contains(&value.abs()) {
        out.extend_from_slice(value.to_string().as_bytes());
        return;
    }
    if value < 0.0 {
        out.push(b'-');
    }
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let n = exponent.parse::<i64>().unwrap_or(0) + 1;
    if k <= n && n <= 21 {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.extend_from_slice(&digits[..n as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-n) as usize));
        out.extend_from_slice(&digits);
    } else {
        out.push(digits[0]);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if n > 0 { b'+' } else { b'-' });
        out.extend_from_slice((n - 1).unsigned_abs().to_string().as_bytes());
    }
}

/// `Number.isInteger`: finite with no fractional part.
pub fn is_integer(value: f64) -> bool {
    // Every double of magnitude 2^52 or more is an integer; below it the cast is exact, and
    // it avoids `trunc`, a library call where the target has no SSE4.1.
    const WHOLE: f64 = 4_503_599_627_370_496.0;
    if value.abs() < WHOLE {
        (value as i64) as f64 == value
    } else {
        value.is_finite()
    }
}

/// `Number.isSafeInteger`.
pub fn is_safe_integer(value: f64) -> bool {
    is_integer(value) && value.abs() <= MAX_SAFE_INTEGER
}

/// ECMAScript `Number(string)` for a string already known to be non-blank after trimming:
/// decimal literals, unsigned `0x`/`0o`/`0b` integers and `Infinity`. `None` stands for NaN.
pub fn parse_number(text: &[u8]) -> Option<f64> {
    let body = super::trim(text);
    if body.is_empty() {
        return Some(0.0);
    }
    if body.len() > 2 && body[0] == b'0' {
        let radix = match body[1] {
            b'x' | b'X' => 16,
            b'o' | b'O' => 8,
            b'b' | b'B' => 2,
            _ => 0,
        };
        if radix != 0 {
            return parse_radix(&body[2..], radix);
        }
    }
    let (negative, unsigned) = match body[0] {
        b'+' => (false, &body[1..]),
        b'-' => (true, &body[1..]),
        _ => (false, body),
    };
    if unsigned == b"Infinity" {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if let Some(value) = plain_integer(unsigned) {
        return Some(if negative { -value } else { value });
    }
    if let Some(value) = short_decimal(unsigned) {
        return Some(if negative { -value } else { value });
    }
    if !is_decimal_literal(unsigned) {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    text.parse::<f64>().ok()
}

/// 1 to 15 ASCII digits and nothing else: below 10^15, so exact in a double, read without the
/// float parser. Most numbers sent as text are these.
#[inline]
pub fn plain_integer(text: &[u8]) -> Option<f64> {
    if text.is_empty() || text.len() > 15 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        text.iter()
            .fold(0u64, |n, digit| n * 10 + u64::from(digit - b'0')) as f64,
    )
}

/// `[digits].[digits]` with 1 to 15 digits in all, read without the float parser: the digits
/// as an integer and the power of ten are both exact in a double, so their quotient is the
/// correctly rounded value (Clinger's fast path).
pub fn short_decimal(text: &[u8]) -> Option<f64> {
    const POWERS: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    if text.len() > 16 {
        return None;
    }
    let (mut digits, mut point, mut mantissa) = (0usize, None, 0u64);
    for (at, &byte) in text.iter().enumerate() {
        match byte {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(byte - b'0');
                digits += 1;
            }
            b'.' if point.is_none() => point = Some(at),
            _ => return None,
        }
    }
    let point = point?;
    if digits == 0 || digits > 15 {
        return None;
    }
    Some(mantissa as f64 / POWERS[text.len() - 1 - point])
}

/// `[digits][.digits]([eE][+-]?digits)?` with at least one mantissa digit.
fn is_decimal_literal(text: &[u8]) -> bool {
    let mut at = 0;
    let digits = |at: &mut usize| {
        let start = *at;
        while *at < text.len() && text[*at].is_ascii_digit() {
            *at += 1;
        }
        *at - start
    };
    let mut count = digits(&mut at);
    if at < text.len() && text[at] == b'.' {
        at += 1;
        count += digits(&mut at);
    }
    if count == 0 {
        return false;
    }
    if at < text.len() && (text[at] == b'e' || text[at] == b'E') {
        at += 1;
        if at < text.len() && (text[at] == b'+' || text[at] == b'-') {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return false;
        }
    }
    at == text.len()
}

/// An unsigned integer in base 2, 8 or 16, correctly rounded to a double.
fn parse_radix(text: &[u8], radix: u32) -> Option<f64> {
    let bits_per_digit = match radix {
        16 => 4,
        8 => 3,
        _ => 1,
    };
    let mut bits: Vec<bool> = Vec::with_capacity(text.len() * bits_per_digit);
    for &b in text {
        let digit = char::from(b).to_digit(radix)?;
        for shift in (0..bits_per_digit).rev() {
            bits.push(digit >> shift & 1 == 1);
        }
    }
    let Some(first) = bits.iter().position(|&b| b) else {
        return Some(0.0);
    };
    let significant = &bits[first..];
    let head = significant.len().min(64);
    let mut top: u64 = 0;
    for &bit in &significant[..head] {
        top = top << 1 | u64::from(bit);
    }
    let rest = &significant[head..];
    if rest.iter().any(|&b| b) {
        top |= 1;
    }
    let scale = i32::try_from(rest.len()).unwrap_or(i32::MAX);
    Some(top as f64 * 2f64.powi(scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_integer_reads_as_trunc_does() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut checked = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_503_599_627_370_496.0,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            9.223_372_036_854_776e18,
            -9.223_372_036_854_776e18,
            f64::MAX,
            f64::MIN_POSITIVE,
        ];
        for _ in 0..200_000 {
            crate::testing::xorshift(&mut state);
            checked.push(f64::from_bits(state));
            checked.push((state % 20_000) as f64 / 8.0 - 1_000.0);
        }
        for value in checked {
            let whole = value.is_finite() && value.trunc() == value;
            assert_eq!(is_integer(value), whole, "{value:e}");
        }
    }

    #[test]
    fn formats_like_ecmascript() {
        let cases = [
            (5.0, "5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (5e-324, "5e-324"),
            (-0.0, "0"),
            (-1.5, "-1.5"),
            (123456.789, "123456.789"),
            (1.2345e-10, "1.2345e-10"),
            (2f64.powi(70), "1.1805916207174113e+21"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (0.1, "0.1"),
            (1.5e-6, "0.0000015"),
            (-123.25, "-123.25"),
            (999999999999999900000.0, "999999999999999900000"),
            (9007199254740993.0, "9007199254740992"),
        ];
        for (value, text) in cases {
            assert_eq!(number_to_string(value), text, "{value}");
        }
        for value in [
            1.0,
            7.0,
            -7.0,
            10.0,
            500.0,
            -1000.0,
            9007199254740991.0,
            -9007199254740991.0,
        ] {
            assert_eq!(
                number_to_string(value),
                (value as i64).to_string(),
                "{value}"
            );
        }
    }

    #[test]
    fn parses_like_number() {
        let cases: [(&str, Option<f64>); 16] = [
            ("0x1A", Some(26.0)),
            ("0b101", Some(5.0)),
            ("0o17", Some(15.0)),
            ("5.", Some(5.0)),
            (".5", Some(0.5)),
            ("+5", Some(5.0)),
            ("\u{a0}42\u{feff}", Some(42.0)),
            ("-0x10", None),
            ("1_000", None),
            ("inf", None),
            ("nan", None),
            (".", None),
            ("1e", None),
            ("1e400", Some(f64::INFINITY)),
            ("-Infinity", Some(f64::NEG_INFINITY)),
            ("0x", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_number(text.as_bytes()), expected, "{text}");
        }
        assert!(parse_number(b"-0").is_some_and(|v| v == 0.0 && v.is_sign_negative()));
        let huge = format!("0x{}", "f".repeat(300));
        assert_eq!(parse_number(huge.as_bytes()), Some(f64::INFINITY));
        assert_eq!(parse_number(b"0x20000000000001"), Some(9007199254740992.0));
        assert_eq!(parse_number(b"0x20000000000003"), Some(9007199254740996.0));
    }

    #[test]
    fn digit_strings_read_as_the_float_parser_reads_them() {
        for text in [
            "0",
            "007",
            "-12",
            "+3",
            "999999999999999",
            "1000000000000000",
        ] {
            let slow = text.parse::<f64>().ok();
            assert_eq!(parse_number(text.as_bytes()), slow, "{text}");
        }
        assert_eq!(
            parse_number(b"12345678901234567890"),
            Some(12345678901234567890.0)
        );
    }

    #[test]
    fn short_decimals_read_as_the_float_parser_reads_them() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |bound: u64| {
            crate::testing::xorshift(&mut state);
            state % bound
        };
        let mut texts: Vec<String> = [
            "0.5",
            "5.",
            ".5",
            "-0.0",
            "0.1",
            "0.3",
            "123456789012.345",
            "0.000000000000001",
            "999999999999999.",
            ".999999999999999",
            "9999999999999999.",
            "1.2.3",
            ".",
            "-.",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        for _ in 0..200_000 {
            let len = 1 + next(17) as usize;
            let mut text: String = (0..len)
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            text.insert(next(len as u64 + 1) as usize, '.');
            if next(3) == 0 {
                text.insert(0, '-');
            }
            texts.push(text);
        }
        for text in &texts {
            let slow = if is_decimal_literal(text.trim_start_matches('-').as_bytes()) {
                text.parse::<f64>().ok()
            } else {
                None
            };
            let got = parse_number(text.as_bytes());
            assert_eq!(got.map(f64::to_bits), slow.map(f64::to_bits), "{text}");
        }
    }
}
