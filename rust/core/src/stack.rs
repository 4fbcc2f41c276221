//! Stack headroom for the bounded recursions. Shapes are at most 512 levels high, which a
//! small thread stack (or a debug build's large frames) may still not hold; when the stack
//! runs low the walk continues on a fresh heap-allocated segment.

const RED_ZONE: usize = 192 * 1024;
const SEGMENT: usize = 4 * 1024 * 1024;
const STRIDE: u32 = 8;

/// Runs `body` one level deeper, checking the remaining stack every few levels.
#[inline]
pub fn deeper<R>(depth: u32, body: impl FnOnce() -> R) -> R {
    if depth % STRIDE == 0 {
        stacker::maybe_grow(RED_ZONE, SEGMENT, body)
    } else {
        body()
    }
}

/// Runs `body`, first moving to a fresh stack segment if the current one runs low.
#[inline]
pub fn grow<R>(body: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, body)
}
