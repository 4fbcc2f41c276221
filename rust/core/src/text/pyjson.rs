//! The lengths of the text Python's `json.dumps` writes with its default options
//! (`ensure_ascii=True`, `allow_nan=True`, `", "` and `": "` separators), so a byte cap can be
//! measured without building the text.

/// The length of `repr(value)` for a Python float, which is what `json.dumps` writes for a
/// finite float; `NaN`, `Infinity` and `-Infinity` for the others.
///
/// Python's repr is the shortest decimal that reads back as the same double, written in
/// positional form when the decimal exponent lies in `[-4, 16)` (with `.0` after a whole
/// number) and as `d.ddde±XX` otherwise.
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
    // Ryu gives the shortest digits that read back as the same double, closest to it: the
    // digits `repr` picks. Only their count and the decimal exponent matter here; most data
    // (prices, measures) holds short decimals, found without writing any text.
    let (digits, exponent) = short_decimal(value.abs()).unwrap_or_else(|| {
        let mut buffer = ryu::Buffer::new();
        shortest_digits(buffer.format_finite(value.abs()))
    });
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
        let shown = int_len(i64::try_from(exponent.unsigned_abs()).unwrap_or(0)).max(2);
        let shown = i64::try_from(shown).unwrap_or(2);
        let digits = i64::try_from(digits).unwrap_or(1);
        digits + i64::from(digits > 1) + 2 + shown
    };
    sign + usize::try_from(body).unwrap_or(0)
}

/// Powers of ten a double holds exactly.
const POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// What `shortest_digits` finds, for a positive double that a decimal of at most 14
/// significant digits names (15 for some); `None` for any other double.
///
/// The value is scaled by the power of ten `10^k` that brings it between `5e13` and `1e15`:
/// every such decimal is then an integer `m` there. The product's rounding error and the double's own
/// half-ulp stay under `2^-52` of the product (0.22 below `1e15`), so that decimal is the integer
/// nearest the product, and the only one near it. `m / 10^k` is correctly rounded (both are
/// exact), which is what a parser gives for that decimal. Its digits, trailing zeros dropped,
/// are then the shortest, and the only ones of that length (two would need an ulp over
/// `10^-k`).
fn short_decimal(value: f64) -> Option<(usize, i64)> {
    // An upper bound of the decimal exponent from the binary one (78913 / 2^18 is log10(2),
    // rounded down): the scale may come out one short, which only leaves some 15-digit
    // decimals to ryu.
    let binary = i64::try_from((value.to_bits() >> 52) & 0x7FF).unwrap_or(0) - 1022;
    let scale = 14 - ((binary * 78_913) >> 18);
    let mut scale = usize::try_from(scale).ok()?;
    let mut scaled = value * *POWERS.get(scale)?;
    if scaled >= 1e15 {
        scale = scale.checked_sub(1)?;
        scaled = value * POWERS[scale];
    }
    // Rounded half up by truncation, not `f64::round` (a libm call on baseline x86-64):
    // below 1e15 adding a half is exact, and the integer fits a u64.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut whole = (scaled + 0.5) as u64;
    #[allow(clippy::cast_precision_loss)]
    let rounded = whole as f64;
    let near = (scaled - rounded).abs() <= scaled * (4.0 * f64::EPSILON);
    if !near || whole == 0 || rounded / POWERS[scale] != value {
        return None;
    }
    let width = i64::from(whole.ilog10()) + 1;
    let mut digits = width;
    while whole % 10 == 0 {
        whole /= 10;
        digits -= 1;
    }
    let scale = i64::try_from(scale).unwrap_or(0);
    Some((usize::try_from(digits).unwrap_or(1), width - 1 - scale))
}

/// The count of significant digits of a positive decimal as ryu writes it (`123.45`, `1e16`,
/// `1.5e-7`) and the exponent of its first digit.
fn shortest_digits(text: &str) -> (usize, i64) {
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let lead = whole
        .bytes()
        .chain(fraction.bytes())
        .take_while(|&b| b == b'0')
        .count();
    let significant = whole.len() + fraction.len()
        - lead
        - fraction
            .bytes()
            .rev()
            .chain(whole.bytes().rev())
            .take_while(|&b| b == b'0')
            .count()
            .min(whole.len() + fraction.len() - lead);
    let first = i64::try_from(whole.len()).unwrap_or(0) - 1 - i64::try_from(lead).unwrap_or(0);
    (significant, first + exponent)
}

/// The length of the decimal text of a 64-bit integer.
pub fn int_len(value: i64) -> usize {
    let sign = usize::from(value < 0);
    let digits = value
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |d| d as usize + 1);
    sign + digits
}

/// The length of a string as `json.dumps` quotes it with `ensure_ascii=True`, from its WTF-8
/// bytes: printable ASCII as is, `"` `\` and the five short escapes in two characters, every
/// other code point below U+10000 as `\uXXXX` and the rest as a surrogate pair of those.
pub fn string_len(bytes: &[u8]) -> usize {
    2 + bytes
        .iter()
        .map(|&byte| usize::from(QUOTED[usize::from(byte)]))
        .sum::<usize>()
}

/// How many characters each byte of WTF-8 adds to its quoted string (see `string_len`): a
/// lead byte carries its whole code point, a continuation byte nothing.
const QUOTED: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = match byte as u8 {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0C => 2,
            0x20..=0x7E => 1,
            0x00..=0x1F | 0x7F => 6,
            0x80..=0xBF => 0,
            0xC0..=0xEF => 6,
            _ => 12,
        };
        byte += 1;
    }
    table
};

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

    #[test]
    fn short_decimals_find_the_digits_ryu_finds() {
        // Random doubles (mostly long, so `None`), and decimals of 1 to 17 digits at every
        // scale, read as a parser reads them: wherever the fast path answers, ryu agrees.
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut answered = 0;
        for round in 0..400_000u32 {
            crate::testing::xorshift(&mut state);
            let value = if round % 2 == 0 {
                f64::from_bits(state >> 1)
            } else {
                let digits = state % 17 + 1;
                let whole = (state >> 8) % 10u64.pow(u32::try_from(digits).unwrap_or(1));
                let scale = (state >> 60) + (state >> 40) % 8;
                format!("{whole}e-{scale}").parse::<f64>().unwrap_or(0.0)
            };
            if !value.is_finite() || value <= 0.0 {
                continue;
            }
            if let Some(found) = short_decimal(value) {
                answered += 1;
                let mut buffer = ryu::Buffer::new();
                assert_eq!(
                    found,
                    shortest_digits(buffer.format_finite(value)),
                    "{value:e}"
                );
            }
        }
        assert!(
            answered > 100_000,
            "the fast path answered only {answered} times"
        );
    }

    #[test]
    fn ryu_digits_match_the_shortest_scientific_digits() {
        // Rust's `{:e}` also writes the shortest round-trip digits; both must agree on the
        // digit count and exponent for every kind of double, subnormals included.
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for round in 0..300_000u32 {
            crate::testing::xorshift(&mut state);
            let bits = if round % 3 == 0 { state >> 12 } else { state };
            let value = f64::from_bits(bits).abs();
            if !value.is_finite() || value == 0.0 {
                continue;
            }
            let text = format!("{value:e}");
            let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
            let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
            let exponent: i64 = exponent.parse().unwrap_or(0);
            let mut buffer = ryu::Buffer::new();
            assert_eq!(
                shortest_digits(buffer.format_finite(value)),
                (digits, exponent),
                "{value:e}"
            );
        }
    }
}
