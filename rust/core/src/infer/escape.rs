//! Decoding JSON string escapes into WTF-8 (lone surrogates survive).

fn hex4(raw: &[u8]) -> u32 {
    raw.iter().fold(0, |acc, &b| {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b.wrapping_sub(b'A').wrapping_add(10),
        };
        (acc << 4) | u32::from(digit & 15)
    })
}

fn push_code(out: &mut Vec<u8>, code: u32) {
    match code {
        0..=0x7F => out.push(code as u8),
        0x80..=0x7FF => out.extend([0xC0 | (code >> 6) as u8, 0x80 | (code & 0x3F) as u8]),
        0x800..=0xFFFF => out.extend([
            0xE0 | (code >> 12) as u8,
            0x80 | ((code >> 6) & 0x3F) as u8,
            0x80 | (code & 0x3F) as u8,
        ]),
        _ => out.extend([
            0xF0 | (code >> 18) as u8,
            0x80 | ((code >> 12) & 0x3F) as u8,
            0x80 | ((code >> 6) & 0x3F) as u8,
            0x80 | (code & 0x3F) as u8,
        ]),
    }
}

/// Decodes validated string contents; lone surrogates become WTF-8.
pub(crate) fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != b'\\' || i + 1 >= raw.len() {
            out.push(raw[i]);
            i += 1;
            continue;
        }
        let short = match raw[i + 1] {
            b'b' => Some(0x08),
            b'f' => Some(0x0C),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'u' => None,
            other => Some(other),
        };
        if let Some(byte) = short {
            out.push(byte);
            i += 2;
            continue;
        }
        let Some(hex) = raw.get(i + 2..i + 6) else {
            out.extend_from_slice(&raw[i..]);
            break;
        };
        let mut code = hex4(hex);
        i += 6;
        if (0xD800..0xDC00).contains(&code) && raw.get(i..i + 2) == Some(b"\\u") {
            if let Some(low) = raw.get(i + 2..i + 6).map(hex4) {
                if (0xDC00..0xE000).contains(&low) {
                    code = 0x1_0000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                }
            }
        }
        push_code(&mut out, code);
    }
    out
}
