//! JavaScript object key enumeration order: array-index keys first, ascending, then the
//! remaining keys in insertion order.

/// The numeric value of a canonical array-index key (`"0"`, `"1"`, … `"4294967294"`).
pub fn array_index(key: &[u8]) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key[0] == b'0') {
        return None;
    }
    let mut value: u64 = 0;
    for &b in key {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u64::from(b - b'0');
    }
    u32::try_from(value).ok().filter(|&v| v != u32::MAX)
}

/// The positions of `keys` in JavaScript enumeration order.
pub fn js_order<K: AsRef<[u8]>>(keys: &[K]) -> Vec<usize> {
    let mut indexed: Vec<(u32, usize)> = Vec::new();
    let mut named: Vec<usize> = Vec::with_capacity(keys.len());
    for (position, key) in keys.iter().enumerate() {
        match array_index(key.as_ref()) {
            Some(index) => indexed.push((index, position)),
            None => named.push(position),
        }
    }
    indexed.sort_unstable();
    indexed.into_iter().map(|(_, p)| p).chain(named).collect()
}
