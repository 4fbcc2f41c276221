//! JavaScript string semantics: trimming, UTF-16 lengths and key order.

use crate::text::keys::{array_index, js_order};
use crate::text::{char_len, trim, utf16_len};

#[test]
fn trim_uses_the_javascript_whitespace_set() {
    assert_eq!(
        trim("\u{feff}\u{a0} a b \u{3000}\u{2029}".as_bytes()),
        b"a b"
    );
    assert_eq!(
        trim("\u{85}a\u{180e}".as_bytes()),
        "\u{85}a\u{180e}".as_bytes()
    );
    assert_eq!(trim("\u{200b}".as_bytes()), "\u{200b}".as_bytes());
    assert_eq!(trim(b"   "), b"");
    assert_eq!(trim(b"20"), b"20");
    assert_eq!(trim(b"x"), b"x");
    assert_eq!(trim(b""), b"");
    assert_eq!(trim(b"\x0b1 2\x0c"), b"1 2");
    assert_eq!(trim("1\u{a0}".as_bytes()), b"1");
    assert_eq!(trim("\u{3000}1".as_bytes()), b"1");
}

#[test]
fn trim_tells_every_ascii_byte_at_either_end() {
    for byte in 0u8..0x80 {
        let space = crate::text::is_js_space(u32::from(byte));
        let ends: [&[u8]; 2] = [&[byte, b'a'], &[b'a', byte]];
        for text in ends {
            let kept: &[u8] = if space { b"a" } else { text };
            assert_eq!(trim(text), kept, "{byte:#x}");
        }
    }
}

#[test]
fn lengths_are_utf16_units() {
    assert_eq!(utf16_len("é".as_bytes()), 1);
    assert_eq!(utf16_len("😀".as_bytes()), 2);
    assert_eq!(utf16_len(&[0xED, 0xA0, 0x80]), 1);
}

#[test]
fn string_lengths_count_code_points() {
    assert_eq!(char_len("é".as_bytes()), 1);
    assert_eq!(char_len("😀😀".as_bytes()), 2);
    assert_eq!(char_len(&[0xED, 0xA0, 0x80]), 1);
}

#[test]
fn array_index_keys_come_first() {
    assert_eq!(array_index(b"0"), Some(0));
    assert_eq!(array_index(b"01"), None);
    assert_eq!(array_index(b"4294967294"), Some(4_294_967_294));
    assert_eq!(array_index(b"4294967295"), None);
    let keys: [&[u8]; 5] = [b"x", b"a", b"b", b"5", b"01"];
    assert_eq!(js_order(&keys), vec![3, 0, 1, 2, 4]);
}
