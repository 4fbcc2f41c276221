//! The fast path of the JSON Lines tokenizer: a structural index found 64 bytes at a time
//! (the simdjson approach), walked by a grammar check that fills the same tape as the scalar
//! parser in `tape.rs`.
//!
//! It never reports an error. A line it cannot vouch for (bad syntax, an escape it does not
//! check itself, a control byte in a string, invalid UTF-8, an offset past 4 GiB) makes it give
//! up, and the caller parses the line again with the scalar parser, which finds the exact error
//! (or, for a valid line the fast path declined, the same tape). So what a line means, and every
//! error with its line and column, is defined by the scalar parser alone; this file only has to
//! be right about the lines it accepts. `tests` check that against the scalar parser.
//!
//! How the masks work, for one block of 64 bytes (bit `i` is byte `i`):
//! - a quote is *escaped* when an odd run of backslashes precedes it (carried across blocks);
//! - the unescaped quotes toggle *inside*: a prefix XOR marks every byte from an opening quote
//!   up to (not including) its closing quote;
//! - outside strings, the structural bytes `{}[]:,`, the quotes, and the first byte of each run
//!   of other non-blank bytes (a scalar: number or literal) are the *events* the grammar check
//!   visits in order; between two events there are only blanks, string text or the rest of a
//!   scalar.
//!
//! The classes are found with AVX2 when the CPU has it (checked at run time), else with SSE2
//! (part of every x86_64 CPU), else byte by byte; the tests hold each to the byte-by-byte one.

use super::error::SyntaxError;
use super::tape::{
    is_utf8, Frame, Tape, Tok, ARRAY, FALSE, KEY, NULL, NUMBER, OBJECT, STRING, TRUE,
};

/// The byte classes of one 64-byte block, one bit per byte.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// Space, tab, carriage return and newline.
    pub white: u64,
    pub newline: u64,
    /// `{`, `}`, `[`, `]`, `:` and `,`.
    pub op: u64,
    /// Bytes below 0x20.
    pub control: u64,
    /// Bytes with the high bit set.
    pub high: u64,
}

/// Classifies 64 bytes without SIMD: the reference the vector versions are tested against,
/// and the version for targets without SSE2.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn classify_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b' ' | b'\t' | b'\r' | b'\n' => m.white |= bit,
            b'{' | b'}' | b'[' | b']' | b':' | b',' => m.op |= bit,
            _ => {}
        }
        if b == b'\n' {
            m.newline |= bit;
        }
        if b < 0x20 {
            m.control |= bit;
        }
        if b >= 0x80 {
            m.high |= bit;
        }
    }
    m
}

/// Classifies 64 bytes with SSE2, 16 at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let mut m = Masks::default();
    // SAFETY: SSE2 is part of the x86_64 baseline, so these intrinsics exist on every CPU this
    // code runs on. Each load reads bytes `16 * k .. 16 * k + 16` of a 64-byte array (k < 4),
    // so it stays inside `block`; unaligned loads are allowed at any address.
    unsafe {
        let eq = |v: __m128i, b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16);
        let control = _mm_set1_epi8(0x1f);
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast());
            let shift = 16 * k as u32;
            // `[` and `]` are `{` and `}` with bit 5 clear: one compare each after setting it.
            let lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let op = _mm_or_si128(
                _mm_or_si128(eq(lower, b'{'), eq(lower, b'}')),
                _mm_or_si128(eq(v, b':'), eq(v, b',')),
            );
            let white = _mm_or_si128(
                _mm_or_si128(eq(v, b' '), eq(v, b'\t')),
                _mm_or_si128(eq(v, b'\r'), eq(v, b'\n')),
            );
            // An unsigned byte is at most 0x1f exactly when max(byte, 0x1f) is 0x1f.
            let low = _mm_cmpeq_epi8(_mm_max_epu8(v, control), control);
            m.quote |= bits(eq(v, b'"')) << shift;
            m.backslash |= bits(eq(v, b'\\')) << shift;
            m.white |= bits(white) << shift;
            m.newline |= bits(eq(v, b'\n')) << shift;
            m.op |= bits(op) << shift;
            m.control |= bits(low) << shift;
            m.high |= bits(v) << shift;
        }
    }
    m
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    classify_scalar(block)
}

/// [`classify`] with AVX2, 32 bytes at a time. The white space and the operators are found
/// with one table lookup each (`vpshufb` on the low nibble, the simdjson trick): a byte is
/// white when the white table holds it at its low nibble, and an operator when the operator
/// table holds it with bit 5 set (`[` and `]` are `{` and `}` with bit 5 clear). Bytes with the
/// high bit set look up zero, which neither test accepts.
///
/// Backslashes, control bytes (the line's newline among them) and bytes with the high bit set
/// are rare in most blocks: one test finds whether a block holds any, and only then are their
/// masks made (else they are zero), which saves most of the work on a block of plain text.
///
/// # Safety
/// The CPU must support AVX2 (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn classify_avx2(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_max_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setr_epi8,
        _mm256_shuffle_epi8, _mm256_testz_si256,
    };
    // SAFETY: the caller guarantees AVX2, and this function is compiled with it enabled. The
    // two loads read bytes `0..32` and `32..64` of a 64-byte array, so they stay inside
    // `block`; unaligned 32-byte loads are allowed at any address.
    unsafe {
        let lo = _mm256_loadu_si256(block.as_ptr().cast());
        let hi = _mm256_loadu_si256(block.as_ptr().add(32).cast());
        // Indexed by the low nibble; 0xff (never a byte below 0x80) where no byte fits.
        #[rustfmt::skip]
        let white_table = _mm256_setr_epi8(
            0x20, -1, -1, -1, -1, -1, -1, -1, -1, 0x09, 0x0a, -1, -1, 0x0d, -1, -1,
            0x20, -1, -1, -1, -1, -1, -1, -1, -1, 0x09, 0x0a, -1, -1, 0x0d, -1, -1,
        );
        #[rustfmt::skip]
        let op_table = _mm256_setr_epi8(
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x3a, 0x7b, 0x2c, 0x7d, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x3a, 0x7b, 0x2c, 0x7d, -1, -1,
        );
        let bit5 = _mm256_set1_epi8(0x20);
        let control = _mm256_set1_epi8(0x1f);
        let quote = _mm256_set1_epi8(b'"' as i8);
        let backslash = _mm256_set1_epi8(b'\\' as i8);
        let newline = _mm256_set1_epi8(b'\n' as i8);
        let space = _mm256_set1_epi8(0x20);
        let bits = |x: __m256i| u64::from(_mm256_movemask_epi8(x) as u32);
        let both = |f: &dyn Fn(__m256i) -> __m256i| bits(f(lo)) | bits(f(hi)) << 32;
        let low = |v: __m256i| _mm256_cmpeq_epi8(_mm256_max_epu8(v, control), control);
        let quotes = both(&|v| _mm256_cmpeq_epi8(v, quote));
        let white = both(&|v| _mm256_cmpeq_epi8(_mm256_shuffle_epi8(white_table, v), v));
        // The operator table also accepts 0x1a and 0x0c (`:` and `,` with bit 5 clear):
        // control bytes, taken out below when the block has any.
        let op = both(&|v| {
            _mm256_cmpeq_epi8(_mm256_shuffle_epi8(op_table, v), _mm256_or_si256(v, bit5))
        });
        // As signed bytes, the control bytes and those with the high bit set are exactly the
        // ones below 0x20: one compare finds both.
        let rare = |v: __m256i| {
            _mm256_or_si256(_mm256_cmpeq_epi8(v, backslash), _mm256_cmpgt_epi8(space, v))
        };
        let rare = _mm256_or_si256(rare(lo), rare(hi));
        if _mm256_testz_si256(rare, rare) != 0 {
            return Masks {
                quote: quotes,
                white,
                op,
                ..Masks::default()
            };
        }
        let low = both(&low);
        Masks {
            quote: quotes,
            backslash: both(&|v| _mm256_cmpeq_epi8(v, backslash)),
            white,
            newline: both(&|v| _mm256_cmpeq_epi8(v, newline)),
            op: op & !low,
            control: low,
            high: both(&|v| v),
        }
    }
}

/// Whether [`classify_avx2`], [`prefix_xor_clmul`] and [`Tape::parse_line_avx2`] may be
/// called on this CPU.
///
/// The answer is kept in one byte (0 until known, then 1 for no and 2 for yes), so each line
/// pays one load instead of three feature checks.
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Ordering::Relaxed) {
        0 => {
            let yes = std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("pclmulqdq");
            KNOWN.store(1 + u8::from(yes), Ordering::Relaxed);
            yes
        }
        known => known == 2,
    }
}

/// [`prefix_xor`] in one instruction: a carry-less multiply by all ones.
///
/// # Safety
/// The CPU must support PCLMULQDQ (the caller checks with `is_x86_feature_detected!`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
#[inline]
unsafe fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set1_epi8, _mm_set_epi64x,
    };
    // Bit `i` of the product is the XOR of bits `0..=i` of `x`, as each one of the multiplier
    // shifts a copy of `x` left by its position. Only register operands: nothing to keep in
    // bounds.
    _mm_cvtsi128_si64(_mm_clmulepi64_si128(
        _mm_set_epi64x(0, x as i64),
        _mm_set1_epi8(-1),
        0,
    )) as u64
}

/// Bit `i` set when bits `0..=i` of `x` hold an odd number of ones.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The bytes escaped by a backslash: those right after an odd run of backslashes. `carry` is 1
/// when the previous block ended in such a run, and is updated for the next block.
#[inline(always)]
fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    // A backslash escaped by the previous block's run starts nothing.
    let backslash = backslash & !*carry;
    let follows = (backslash << 1) | *carry;
    // Adding a run's first bit to the run carries out of its end; where the carry lands tells
    // whether the run had odd length, relative to the parity of the bit it started on.
    let odd_starts = backslash & !EVEN & !follows;
    let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (even_starts << 1)) & follows
}

/// The blocks of one line, classified one at a time into events as the walk reaches them;
/// `AVX2` when the CPU has it (and the code runs inside [`Tape::parse_line_avx2`]).
struct Blocks<'a, const AVX2: bool> {
    buf: &'a [u8],
    /// Start of the next block to classify.
    next: usize,
    escape_carry: u64,
    /// All ones when the next block starts inside a string.
    string_carry: u64,
    /// 1 when the previous block ended inside a scalar.
    scalar_carry: u64,
    /// Where the line ends (its newline, or the end of `buf`), once a block reached it.
    end: Option<usize>,
    backslash: bool,
    high: bool,
    bad: bool,
}

/// Visits the events of one line in order.
struct Scanner<'b, 'a, const AVX2: bool> {
    buf: &'a [u8],
    /// Start of the block the pending events belong to.
    base: usize,
    events: u64,
    blocks: &'b mut Blocks<'a, AVX2>,
}

impl<const AVX2: bool> Scanner<'_, '_, AVX2> {
    /// The position and byte of the next event, or `None` at the end of the line (or once the
    /// line is known to be one the fast path will not take: `bad`).
    #[inline(always)]
    fn event(&mut self) -> Option<(usize, u8)> {
        while self.events == 0 {
            if self.blocks.end.is_some() || self.blocks.bad {
                return None;
            }
            (self.events, self.base) = self.blocks.refill();
        }
        let at = self.base + self.events.trailing_zeros() as usize;
        self.events &= self.events - 1;
        debug_assert!(at < self.buf.len());
        // SAFETY: `advance` keeps only bits of `line`, a subset of `valid`: the bits below
        // `rest = buf.len() - base`, so `at = base + i` with `i < rest` is inside `buf`.
        let byte = unsafe { *self.buf.get_unchecked(at) };
        Some((at, byte))
    }
}

impl<const AVX2: bool> Blocks<'_, AVX2> {
    /// The events of the next block, and where it starts.
    ///
    /// Out of the walk: inlined at each place the walk takes an event, its state crowded the
    /// walk's registers.
    #[inline(always)]
    fn refill(&mut self) -> (u64, usize) {
        #[cfg(target_arch = "x86_64")]
        if AVX2 {
            // SAFETY: blocks with `AVX2` are only made by `parse_line_avx2`, which is only
            // called once the CPU was found to support AVX2, BMI1 and PCLMULQDQ.
            return unsafe { advance_avx2(self) };
        }
        advance_portable(self)
    }

    #[inline(always)]
    fn advance(&mut self) -> (u64, usize) {
        let at = self.next;
        self.next = at + 64;
        let tail;
        let (block, valid) = match self.buf.get(at..).and_then(<[u8]>::first_chunk::<64>) {
            Some(block) => (block, u64::MAX),
            None => {
                let rest = &self.buf[at..];
                tail = padded(rest);
                (&tail, (1u64 << rest.len()) - 1)
            }
        };
        #[cfg(target_arch = "x86_64")]
        let m = if AVX2 {
            // SAFETY: blocks with `AVX2` are only made by `parse_line_avx2`, which is only
            // called once the CPU was found to support AVX2.
            unsafe { classify_avx2(block) }
        } else {
            classify(block)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let m = classify(block);
        // Zero for most blocks: no escape, control byte, line end or byte past ASCII.
        let rare = m.backslash | m.control | m.high | self.escape_carry | !valid;
        let mut quote = m.quote;
        let mut line = u64::MAX;
        if rare != 0 {
            if m.backslash | self.escape_carry != 0 {
                self.backslash = true;
                quote &= !escaped(m.backslash, &mut self.escape_carry);
            }
            let newline = m.newline & valid;
            if newline != 0 {
                self.end = Some(at + newline.trailing_zeros() as usize);
                line = (newline & newline.wrapping_neg()) - 1;
            } else if valid != u64::MAX {
                self.end = Some(self.buf.len());
                line = valid;
            }
            self.high |= m.high & line != 0;
        }
        #[cfg(target_arch = "x86_64")]
        let inside = if AVX2 {
            // SAFETY: as for `classify_avx2` above; `avx2` also checked PCLMULQDQ.
            unsafe { prefix_xor_clmul(quote) }
        } else {
            prefix_xor(quote)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let inside = prefix_xor(quote);
        let inside = inside ^ self.string_carry;
        self.string_carry = ((inside as i64) >> 63) as u64;
        if rare != 0 && m.control & inside & line != 0 {
            self.bad = true;
        }
        let string = inside | quote;
        let op = m.op & !string;
        let scalar = !(string | op | m.white) & line;
        let starts = scalar & !((scalar << 1) | self.scalar_carry);
        self.scalar_carry = scalar >> 63;
        ((op | quote | starts) & line, at)
    }
}

/// [`Blocks::advance`] compiled for AVX2, BMI1 and PCLMULQDQ.
///
/// # Safety
/// The CPU must support AVX2, BMI1 and PCLMULQDQ (see `avx2`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,pclmulqdq")]
#[inline(never)]
unsafe fn advance_avx2<const AVX2: bool>(blocks: &mut Blocks<'_, AVX2>) -> (u64, usize) {
    blocks.advance()
}

#[inline(never)]
fn advance_portable<const AVX2: bool>(blocks: &mut Blocks<'_, AVX2>) -> (u64, usize) {
    blocks.advance()
}

/// The last `rest.len() < 64` bytes of a buffer, then zeros (which are no event).
#[inline(never)]
fn padded(rest: &[u8]) -> [u8; 64] {
    let mut block = [0u8; 64];
    block[..rest.len()].copy_from_slice(rest);
    block
}

/// Marks the walk's other values as the less likely branch, so its string compare is not
/// folded into the jump table on the value's first byte.
#[cold]
#[inline(always)]
fn not_a_string() {}

/// Checks what a literal or number parse left: it parsed, and nothing sticks to its end.
#[inline(always)]
fn scalar(buf: &[u8], parsed: Result<usize, SyntaxError>) -> Option<()> {
    let end = parsed.ok()?;
    matches!(
        buf.get(end),
        None | Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}')
    )
    .then_some(())
}

impl Tape {
    /// [`Tape::parse_line`] for lines the structural scan can vouch for: `Some` with the same
    /// tape and end the scalar parser gives, or `None` when the line must go to it.
    #[inline]
    pub(crate) fn parse_line_fast(&mut self, buf: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the CPU was just found to support AVX2, BMI1 and PCLMULQDQ.
            return unsafe { self.parse_line_avx2(buf) };
        }
        self.walk::<false>(buf)
    }

    /// One JSON Lines line read as [`Tape::parse_line_any`] reads a line no kept shape
    /// repeats: the structural scan, else the scalar parser. Public only for the tokenizer
    /// comparison in `examples/tokenizers.rs`.
    #[doc(hidden)]
    pub fn parse_line_scanned(&mut self, buf: &[u8]) -> Result<usize, SyntaxError> {
        match self.parse_line_fast(buf) {
            Some(end) => Ok(end),
            None => self.parse_line(buf),
        }
    }

    /// [`Tape::parse_line_any`], as the JSON Lines reader calls it (kept shapes first). Public
    /// only for `examples/tokenizers.rs`.
    #[doc(hidden)]
    pub fn parse_line_shaped(&mut self, buf: &[u8]) -> Result<usize, SyntaxError> {
        self.parse_line_any(buf)
    }

    // Kept over simd-json, sonic-rs (examples/tokenizers) and simdjson: fewer instructions a byte.
    /// [`Tape::parse_line_fast`] compiled for AVX2, BMI1 and PCLMULQDQ, so the classifier
    /// inlines into the walk, `tzcnt`/`blsr` pick the events and one `pclmulqdq` finds the
    /// string bodies.
    ///
    /// # Safety
    /// The CPU must support AVX2, BMI1 and PCLMULQDQ (see `avx2`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,pclmulqdq")]
    unsafe fn parse_line_avx2(&mut self, buf: &[u8]) -> Option<usize> {
        self.walk::<true>(buf)
    }

    /// The grammar walk over the events of one line.
    #[inline(always)]
    fn walk<const AVX2: bool>(&mut self, buf: &[u8]) -> Option<usize> {
        self.toks.clear();
        self.stack.clear();
        // Token offsets are 32-bit; a longer line is the scalar parser's to reject.
        let buf = &buf[..buf.len().min(u32::MAX as usize)];
        let mut blocks = Blocks::<AVX2> {
            buf,
            next: 0,
            escape_carry: 0,
            string_carry: 0,
            scalar_carry: 0,
            end: None,
            backslash: false,
            high: false,
            bad: false,
        };
        let mut scan = Scanner {
            buf,
            base: 0,
            events: 0,
            blocks: &mut blocks,
        };
        let mut event = scan.event()?;
        'value: loop {
            let (pos, byte) = event;
            if byte == b'"' {
                let (close, _) = scan.event()?;
                self.string_fast(buf, &scan, pos, close, STRING)?;
            } else {
                // Strings are most values: the jump table below comes after their compare.
                not_a_string();
                match byte {
                    b'{' | b'[' => {
                        let object = byte == b'{';
                        let tok = self.toks.len() as u32;
                        self.toks.push(Tok {
                            tag: if object { OBJECT } else { ARRAY },
                            flag: 0,
                            a: 0,
                            b: 0,
                        });
                        let next = scan.event()?;
                        if next.1 == byte + 2 {
                            // `{` + 2 is `}` and `[` + 2 is `]`.
                            self.toks[tok as usize].a = self.toks.len() as u32;
                        } else {
                            self.stack.push(Frame {
                                tok,
                                count: 1,
                                object,
                            });
                            event = next;
                            if object {
                                event = self.key_fast(buf, &mut scan, event)?;
                            }
                            continue 'value;
                        }
                    }
                    b't' => scalar(buf, self.literal(buf, pos, b"true", TRUE))?,
                    b'f' => scalar(buf, self.literal(buf, pos, b"false", FALSE))?,
                    b'n' => scalar(buf, self.literal(buf, pos, b"null", NULL))?,
                    b'0'..=b'9' if self.integer_fast(buf, pos) => {}
                    b'-' | b'0'..=b'9' => scalar(buf, self.number(buf, pos))?,
                    _ => return None,
                }
            }
            loop {
                let Some(frame) = self.stack.last_mut() else {
                    if scan.event().is_some() || scan.blocks.bad {
                        return None;
                    }
                    let end = scan.blocks.end?;
                    let short = end < u32::MAX as usize;
                    let valid = !scan.blocks.high || is_utf8(&buf[..end]);
                    return (short && valid).then_some(end);
                };
                match scan.event()?.1 {
                    b',' => {
                        frame.count += 1;
                        let object = frame.object;
                        event = scan.event()?;
                        if object {
                            event = self.key_fast(buf, &mut scan, event)?;
                        }
                        continue 'value;
                    }
                    b'}' if frame.object => {}
                    b']' if !frame.object => {}
                    _ => return None,
                }
                let frame = *frame;
                self.stack.pop();
                let end = self.toks.len() as u32;
                let tok = &mut self.toks[frame.tok as usize];
                tok.a = end;
                tok.b = frame.count;
            }
        }
    }

    /// An integer of at most 7 digits at `pos` and the byte that ends it, read as one 8-byte
    /// word: pushes its token and answers true, or answers false (pushing nothing) for any
    /// other number, or one too near the end of `buf`, which [`Tape::number`] then reads.
    #[inline(always)]
    fn integer_fast(&mut self, buf: &[u8], pos: usize) -> bool {
        const LO: u64 = 0x0101_0101_0101_0101;
        const HI: u64 = 0x8080_8080_8080_8080;
        let Some(bytes) = buf.get(pos..pos + 8) else {
            return false;
        };
        let mut raw = [0u8; 8];
        raw.copy_from_slice(bytes);
        // High bit of each byte set when that byte is not an ASCII digit (as `tape::digits`).
        let t = u64::from_le_bytes(raw) ^ (LO * u64::from(b'0'));
        let other = (((t & !HI) + LO * 0x76) | t) & HI;
        let n = (other.trailing_zeros() / 8) as usize;
        // Eight digits or more, a leading zero, or a `.`, `e` or anything else after the
        // digits: the general reader decides.
        let ends = matches!(
            raw.get(n),
            Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}')
        );
        if !ends || (n > 1 && raw[0] == b'0') {
            return false;
        }
        // `pos + n` is inside `buf`, cut to `u32::MAX` bytes by `walk`: both fit.
        self.toks.push(Tok {
            tag: NUMBER,
            flag: 0,
            a: pos as u32,
            b: n as u32,
        });
        true
    }

    /// A key at `event`, its `:`, and the value's event.
    #[inline(always)]
    fn key_fast<const AVX2: bool>(
        &mut self,
        buf: &[u8],
        scan: &mut Scanner<'_, '_, AVX2>,
        (pos, byte): (usize, u8),
    ) -> Option<(usize, u8)> {
        if byte != b'"' {
            return None;
        }
        let (close, _) = scan.event()?;
        self.string_fast(buf, scan, pos, close, KEY)?;
        if scan.event()?.1 != b':' {
            return None;
        }
        scan.event()
    }

    /// The string opened at `open` and closed at the event `close`: the event after an opening
    /// quote is always its closing quote, as string text holds no events.
    #[inline(always)]
    fn string_fast<const AVX2: bool>(
        &mut self,
        buf: &[u8],
        scan: &Scanner<'_, '_, AVX2>,
        open: usize,
        close: usize,
        tag: u8,
    ) -> Option<()> {
        debug_assert_eq!(buf[close], b'"');
        if scan.blocks.backslash {
            // Escapes are checked by the scalar scanner, which must end at the same quote.
            return (self.string(buf, open, tag).ok()? == close + 1).then_some(());
        }
        self.toks.push(Tok {
            tag,
            flag: 0,
            a: open as u32 + 1,
            b: (close - open - 1) as u32,
        });
        Some(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*).
    pub(in crate::infer) struct Rng(pub u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        pub(in crate::infer) fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Whether each byte follows a backslash that is not itself escaped.
    fn escaped_reference(bytes: &[u8]) -> Vec<bool> {
        let mut out = vec![false; bytes.len()];
        let mut escapes = false;
        for (i, &b) in bytes.iter().enumerate() {
            out[i] = escapes;
            escapes = b == b'\\' && !out[i];
        }
        out
    }

    #[test]
    fn classify_matches_the_scalar_reference() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = match rng.below(4) {
                    0 => {
                        let set = b"\"\\ \t\r\n{}[]:,";
                        set[rng.below(set.len())]
                    }
                    1 => rng.next() as u8,
                    _ => b"az09-+.eE"[rng.below(9)],
                };
            }
            assert_eq!(classify(&block), classify_scalar(&block), "{block:?}");
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the CPU was just found to support AVX2.
                let wide = unsafe { classify_avx2(&block) };
                assert_eq!(wide, classify_scalar(&block), "{block:?}");
            }
        }
    }

    #[test]
    fn plain_blocks_and_blocks_with_one_rare_byte_classify_as_the_scalar_reference() {
        // `classify_avx2` skips the backslash, control and high masks of a block without such
        // bytes: plain text, and the same with one of them anywhere.
        let plain = b" \"{}[]:,azAZ09-+.eE'`~_/|";
        let rare = [
            b'\\', b'\n', b'\t', b'\r', 0x00, 0x1f, 0x0c, 0x1a, 0x7f, 0x80, 0xc3, 0xff,
        ];
        let mut rng = Rng(0x5eed);
        for round in 0..40_000 {
            let mut block = [0u8; 64];
            for b in block.iter_mut() {
                *b = plain[rng.below(plain.len())];
            }
            if round % 2 == 1 {
                block[rng.below(64)] = rare[rng.below(rare.len())];
            }
            assert_eq!(classify(&block), classify_scalar(&block), "{block:?}");
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the CPU was just found to support AVX2.
                let wide = unsafe { classify_avx2(&block) };
                assert_eq!(wide, classify_scalar(&block), "{block:?}");
            }
        }
    }

    #[test]
    fn the_carry_less_prefix_xor_matches_the_shifts() {
        let mut rng = Rng(3);
        for i in 0..20_000 {
            let x = match i {
                0 => 0,
                1 => u64::MAX,
                2 => 1 << 63,
                _ => rng.next() & rng.next(),
            };
            let reference = (0..64).fold(0u64, |acc, bit| {
                acc | (u64::from((x & (u64::MAX >> (63 - bit))).count_ones() % 2 == 1) << bit)
            });
            assert_eq!(prefix_xor(x), reference, "{x:#x}");
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the CPU was just found to support PCLMULQDQ.
                assert_eq!(unsafe { prefix_xor_clmul(x) }, reference, "{x:#x}");
            }
        }
    }

    #[test]
    fn escapes_match_a_byte_by_byte_scan_across_blocks() {
        let mut rng = Rng(7);
        for _ in 0..20_000 {
            let len = 64 * (1 + rng.below(3));
            let bytes: Vec<u8> = (0..len)
                .map(|_| if rng.below(3) == 0 { b'a' } else { b'\\' })
                .collect();
            let expected = escaped_reference(&bytes);
            let mut carry = 0;
            for (k, block) in bytes.chunks_exact(64).enumerate() {
                let mut backslash = 0u64;
                for (i, &b) in block.iter().enumerate() {
                    backslash |= u64::from(b == b'\\') << i;
                }
                let got = escaped(backslash, &mut carry);
                for i in 0..64 {
                    assert_eq!(got >> i & 1 == 1, expected[64 * k + i], "{bytes:?} {k} {i}");
                }
            }
        }
    }

    fn same_as_scalar(line: &[u8]) -> bool {
        let mut fast = Tape::default();
        let mut slow = Tape::default();
        let expected = slow.parse_line(line);
        // The portable walk (SSE2 or scalar classes) must agree with the one this CPU takes.
        let mut portable = Tape::default();
        let other = portable.walk::<false>(line);
        let mine = fast.parse_line_fast(line);
        assert_eq!(other, mine, "{:?}", String::from_utf8_lossy(line));
        if other.is_some() {
            assert_eq!(format!("{:?}", portable.toks), format!("{:?}", fast.toks));
        }
        match mine {
            Some(end) => {
                assert_eq!(expected, Ok(end), "{:?}", String::from_utf8_lossy(line));
                assert_eq!(
                    format!("{:?}", fast.toks),
                    format!("{:?}", slow.toks),
                    "{:?}",
                    String::from_utf8_lossy(line)
                );
                true
            }
            None => false,
        }
    }

    const VALID: &[&str] = &[
        r#"{"a": 1, "b": [true, false, null], "c": {"d": "e"}}"#,
        r#"[]"#,
        r#"{}"#,
        r#"  {"x":{}, "y":[], "z":[[],{}]}  "#,
        r#"-0.5e+10"#,
        r#""just a string""#,
        r#"{"k\"ey": "va\\lue\u00e9\n", "u": "\ud800"}"#,
        r#"{"é": "😀", "long key that is more than sixty four bytes long, surely, yes indeed": 12345678901234567890}"#,
        "{\"a\":1}\r",
        "{\"a\":1}\n{\"b\":2}",
        "{\"a\" : 1 ,\t\"b\" :\t[ 1 , 2 ] }",
        r#"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31]"#,
        r#"{"a":"\\\\\\\"","b":"\\\\"}"#,
        "true",
        "null",
        "0",
    ];

    #[test]
    fn valid_lines_take_the_fast_path_with_the_same_tape() {
        for line in VALID {
            assert!(same_as_scalar(line.as_bytes()), "{line}");
            // The same line at every offset into a block, and followed by more lines.
            // Leading blanks shift every byte of the line to another place in its block.
            for pad in 0..70 {
                let mut text = " ".repeat(pad).into_bytes();
                text.extend_from_slice(line.as_bytes());
                assert!(same_as_scalar(&text), "{line} {pad}");
                text.extend_from_slice(b"\n{\"next\": \"line\"}\n");
                assert!(same_as_scalar(&text), "{line} {pad}");
            }
        }
    }

    #[test]
    fn bad_lines_go_to_the_scalar_parser() {
        let bad: &[&[u8]] = &[
            b"{\"a\": 1,}",
            b"{\"a\" 1}",
            b"[1 2]",
            b"{\"a\": tru}",
            b"{\"a\": truex}",
            b"{\"a\": 01}",
            b"{\"a\": 1.}",
            b"{\"a\": \"b}",
            b"{\"a\": \"b\tc\"}",
            b"{\"a\": \"\\x\"}",
            b"{\"a\": \"\\u12\"}",
            b"{\"a\": \"\xff\"}",
            b"{\"a\": \"\xed\xa0\x80\"}",
            b"{\"a\": 1} x",
            b"{\"a\": 1}}",
            b"[1]]",
            b"{\"a\": 1",
            b"\"a\"\"b\"",
            b"[\"a\"1]",
            b"[1\"a\"]",
            b"{1: 2}",
            b"\\\"a\"",
            b"[\"a\\\"]",
            b"{\"a\":\"b\nc\"}",
            b"{\"a\": -}",
            b"{\"a\": 1e}",
            b"[1,\x00]",
            b"[nul]",
        ];
        for line in bad {
            assert!(!same_as_scalar(line), "{:?}", String::from_utf8_lossy(line));
            assert!(Tape::default().parse_line(line).is_err());
        }
    }

    #[test]
    fn random_lines_agree_with_the_scalar_parser() {
        let pieces: &[&[u8]] = &[
            b"{",
            b"}",
            b"[",
            b"]",
            b":",
            b",",
            b"\"",
            b"\\",
            b" ",
            b"\t",
            b"\r",
            b"\n",
            b"1",
            b"-",
            b"0",
            b".",
            b"e",
            b"+",
            b"true",
            b"false",
            b"null",
            b"\"k\"",
            b"\"v\":",
            b"\\u",
            b"00e9",
            b"d800",
            b"\\\"",
            b"\\\\",
            b"\xc3\xa9",
            b"\xff",
            b"\x01",
            b"a",
            b"\"key\": \"value\"",
            b"{\"a\": [1, 2.5, \"x\"]}",
        ];
        let mut rng = Rng(42);
        let mut fast = 0;
        for round in 0..200_000 {
            let mut line = Vec::new();
            if round % 2 == 0 {
                // A valid line with one mutation.
                line.extend_from_slice(VALID[rng.below(VALID.len())].as_bytes());
                if rng.below(4) != 0 && !line.is_empty() {
                    let at = rng.below(line.len());
                    let piece = pieces[rng.below(pieces.len())];
                    match rng.below(3) {
                        0 => {
                            line.splice(at..at, piece.iter().copied());
                        }
                        1 => {
                            line.remove(at);
                        }
                        _ => line[at] = piece[0],
                    }
                }
            } else {
                for _ in 0..rng.below(40) {
                    line.extend_from_slice(pieces[rng.below(pieces.len())]);
                }
            }
            let start = line
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'\r'))
                .count();
            if same_as_scalar(&line[start..]) {
                fast += 1;
            }
        }
        assert!(fast > 20_000, "{fast}");
    }

    /// A random valid JSON value, written with random blanks, escapes, non-ASCII text, long
    /// backslash runs and long numbers, so its bytes land anywhere in a 64-byte block.
    pub(in crate::infer) fn value(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
        let blank = |rng: &mut Rng, out: &mut Vec<u8>| {
            for _ in 0..rng.below(3) {
                out.push(b" \t\r"[rng.below(3)]);
            }
            if rng.below(16) == 0 {
                out.extend(std::iter::repeat_n(b' ', rng.below(70)));
            }
        };
        blank(rng, out);
        match if depth == 0 {
            rng.below(6)
        } else {
            rng.below(8)
        } {
            0 => out.extend_from_slice([&b"true"[..], b"false", b"null"][rng.below(3)]),
            1 => number(rng, out),
            2..=5 => string(rng, out),
            6 => {
                out.push(b'[');
                let n = rng.below(5);
                for i in 0..n {
                    if i > 0 {
                        out.push(b',');
                    }
                    value(rng, depth - 1, out);
                }
                blank(rng, out);
                out.push(b']');
            }
            _ => {
                out.push(b'{');
                let n = rng.below(5);
                for i in 0..n {
                    if i > 0 {
                        out.push(b',');
                    }
                    blank(rng, out);
                    string(rng, out);
                    blank(rng, out);
                    out.push(b':');
                    value(rng, depth - 1, out);
                }
                blank(rng, out);
                out.push(b'}');
            }
        }
        blank(rng, out);
    }

    pub(in crate::infer) fn number(rng: &mut Rng, out: &mut Vec<u8>) {
        if rng.below(3) == 0 {
            out.push(b'-');
        }
        let digits = match rng.below(8) {
            0 => 0,
            7 => 300 + rng.below(200),
            _ => 1 + rng.below(20),
        };
        if digits == 0 {
            out.push(b'0');
        } else {
            out.push(b"123456789"[rng.below(9)]);
            out.extend((1..digits).map(|_| b'0' + rng.below(10) as u8));
        }
        if rng.below(3) == 0 {
            out.push(b'.');
            out.extend((0..1 + rng.below(20)).map(|_| b'0' + rng.below(10) as u8));
        }
        if rng.below(4) == 0 {
            out.push(b"eE"[rng.below(2)]);
            if rng.below(2) == 0 {
                out.push(b"+-"[rng.below(2)]);
            }
            out.extend((0..1 + rng.below(4)).map(|_| b'0' + rng.below(10) as u8));
        }
    }

    pub(in crate::infer) fn string(rng: &mut Rng, out: &mut Vec<u8>) {
        out.push(b'"');
        let pieces: &[&[u8]] = &[
            b"a",
            b"key",
            b" ",
            b"\\\"",
            b"\\\\",
            b"\\/",
            b"\\b",
            b"\\f",
            b"\\n",
            b"\\r",
            b"\\t",
            b"\\u00e9",
            b"\\uD800",
            b"\\udc00",
            b"\\ud83d\\ude00",
            "é".as_bytes(),
            "😀".as_bytes(),
            "日本".as_bytes(),
            b"{",
            b"}",
            b"[",
            b"]",
            b":",
            b",",
            b"'",
            b"\x7f",
        ];
        let n = match rng.below(8) {
            0 => 0,
            7 => 30 + rng.below(100),
            _ => rng.below(8),
        };
        for _ in 0..n {
            if rng.below(12) == 0 {
                // An even run of backslashes (escaped backslashes), often across a block edge.
                out.extend(std::iter::repeat_n(b'\\', 2 * (1 + rng.below(40))));
            } else {
                out.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
        }
        out.push(b'"');
    }

    /// Breaks a valid line in one of the ways hostile input does.
    pub(in crate::infer) fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
        if line.is_empty() {
            return;
        }
        let at = rng.below(line.len() + 1);
        let insert: &[&[u8]] = &[
            b"\x00",
            b"\x01",
            b"\x1f",
            b"\t",
            b"\n",
            b"\xff",
            b"\xc3",
            b"\xc0\x80",
            b"\xed\xa0\x80",
            b"\xf0\x9f\x98",
            b"\xe9",
            b"\"",
            b"\\",
            b"\\\\",
            b"\\\\\\",
            b"\\u",
            b"\\x",
            b"\\u12",
            b",",
            b":",
            b"{",
            b"}",
            b"[",
            b"]",
            b"-",
            b".",
            b"e",
            b"0",
            b"01",
            b"tru",
            b"nul",
            b" ",
            b"x",
        ];
        match rng.below(4) {
            0 => {
                let piece = insert[rng.below(insert.len())];
                line.splice(at..at, piece.iter().copied());
            }
            1 if at < line.len() => {
                line.remove(at);
            }
            2 if at < line.len() => line[at] = insert[rng.below(insert.len())][0],
            _ => line.truncate(at),
        }
    }

    #[test]
    fn generated_lines_and_their_mutations_agree_with_the_scalar_parser() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let (mut valid, mut fast, mut broken) = (0, 0, 0);
        for _ in 0..30_000 {
            let mut line = Vec::new();
            let depth = 1 + rng.below(4);
            value(&mut rng, depth, &mut line);
            // Every generated line is valid JSON, and the fast path takes all of them.
            assert!(
                Tape::default().parse_line(&line).is_ok(),
                "{:?}",
                String::from_utf8_lossy(&line)
            );
            assert!(
                same_as_scalar(&line),
                "{:?}",
                String::from_utf8_lossy(&line)
            );
            valid += 1;
            // Followed by another line, it still ends at its own newline.
            let mut two = line.clone();
            two.extend_from_slice(b"\n[1, \"\\\\\"]\n");
            assert!(same_as_scalar(&two));
            for _ in 0..4 {
                let mut bad = line.clone();
                for _ in 0..1 + rng.below(2) {
                    mutate(&mut rng, &mut bad);
                }
                // `same_as_scalar` asserts agreement whenever the fast path answers.
                if same_as_scalar(&bad) {
                    fast += 1;
                } else {
                    broken += 1;
                }
            }
        }
        assert!(
            valid == 30_000 && fast > 1_000 && broken > 1_000,
            "{fast} {broken}"
        );
    }

    #[test]
    fn backslash_runs_at_every_block_edge() {
        for offset in 0..130 {
            for run in 0..70 {
                // `"xxx\\\\…\\"`: the quote after the run closes the string when the run is
                // even, and is escaped (leaving the string open) when it is odd.
                let mut line = b"[\"".to_vec();
                line.extend(std::iter::repeat_n(b'x', offset));
                line.extend(std::iter::repeat_n(b'\\', run));
                line.extend_from_slice(b"\", 1]");
                let scalar_ok = Tape::default().parse_line(&line).is_ok();
                assert_eq!(scalar_ok, run % 2 == 0);
                assert_eq!(same_as_scalar(&line), scalar_ok, "{offset} {run}");
                // The same run outside a string is never JSON.
                let mut outside = b"[".to_vec();
                outside.extend(std::iter::repeat_n(b' ', offset));
                outside.extend(std::iter::repeat_n(b'\\', run));
                outside.extend_from_slice(b"\"a\"]");
                if run > 0 {
                    assert!(!same_as_scalar(&outside), "{offset} {run}");
                }
            }
        }
    }

    #[test]
    fn control_bytes_and_invalid_utf8_anywhere_go_to_the_scalar_parser() {
        let base =
            br#"{"key": "some text that runs past one block of sixty-four bytes", "n": [1, 2]}"#;
        let bad: &[&[u8]] = &[
            b"\x00",
            b"\x01",
            b"\x08",
            b"\x0b",
            b"\x0c",
            b"\x1f",
            b"\xff",
            b"\x80",
            b"\xc3",
            b"\xc0\xaf",
            b"\xed\xa0\x80",
            b"\xed\xbf\xbf",
            b"\xf4\x90\x80\x80",
            b"\xf0\x9f\x98",
        ];
        for at in 1..base.len() {
            for piece in bad {
                let mut line = base[..at].to_vec();
                line.extend_from_slice(piece);
                line.extend_from_slice(&base[at..]);
                assert!(Tape::default().parse_line(&line).is_err());
                assert!(!same_as_scalar(&line), "{at} {piece:?}");
            }
        }
    }

    #[test]
    fn deep_nesting_and_huge_numbers_take_the_fast_path() {
        for depth in [1, 63, 64, 65, 1_000, 100_000] {
            let mut arrays = "[".repeat(depth);
            arrays.push_str(&"]".repeat(depth));
            assert!(same_as_scalar(arrays.as_bytes()), "{depth}");
            let mut objects = "{\"a\":".repeat(depth);
            objects.push('1');
            objects.push_str(&"}".repeat(depth));
            assert!(same_as_scalar(objects.as_bytes()), "{depth}");
            // One bracket short or one too many is an error, at any depth.
            assert!(!same_as_scalar(&arrays.as_bytes()[1..]));
            assert!(!same_as_scalar(&arrays.as_bytes()[..2 * depth - 1]));
        }
        for digits in [1, 63, 64, 65, 309, 400, 100_000] {
            let big = format!(
                "{{\"n\": -{}.5e-{}}}",
                "9".repeat(digits),
                "1".repeat(digits)
            );
            assert!(same_as_scalar(big.as_bytes()), "{digits}");
            let text = format!("[\"{}\"]", "é".repeat(digits));
            assert!(same_as_scalar(text.as_bytes()), "{digits}");
        }
    }

    #[test]
    fn integers_read_from_one_word_agree_with_the_scalar_parser() {
        let enders = [
            " ", "\t", "\r", "\n", ",", "]", "}", ".5", "e3", "E+1", "x", "0", "-", ":",
        ];
        for digits in 1..20 {
            for lead in ['0', '1', '9'] {
                let number: String = std::iter::once(lead)
                    .chain((1..digits).map(|i| char::from(b'0' + (i * 7 % 10) as u8)))
                    .collect();
                for end in enders {
                    for tail in ["", " ", "        ", "                 "] {
                        let line = format!("[{number}{end}{tail}]");
                        let scalar_ok = Tape::default().parse_line(line.as_bytes()).is_ok();
                        // `same_as_scalar` asserts the same tape whenever the fast path answers.
                        let fast = same_as_scalar(line.as_bytes());
                        assert!(!fast || scalar_ok, "{line:?}");
                        let object = format!("{{\"n\":{number}{end}{tail}}}");
                        same_as_scalar(object.as_bytes());
                    }
                }
            }
        }
    }

    #[test]
    fn random_bytes_never_disagree() {
        let mut rng = Rng(99);
        let alphabet = b"{}[]:,\"\\ \t\r\n0123456789-+.eEtrufalsn\x00\x1f\x80\xc3\xa9\xff";
        for _ in 0..100_000 {
            let len = rng.below(200);
            let line: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            same_as_scalar(&line);
        }
    }
}
