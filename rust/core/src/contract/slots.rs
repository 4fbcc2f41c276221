//! Per-object scratch storage of the parser and the explainer, on the stack for the usual
//! small object: nothing is written for the slots or entries left empty, and nothing is
//! allocated.

use std::mem::{ManuallyDrop, MaybeUninit};

/// Most objects declare a few properties: their slots live on the stack.
const INLINE_SLOTS: usize = 16;

/// The value of each declared property, by declaration order, with a bit per slot telling
/// which hold one: nothing is written or read for the others.
pub(super) enum Filled<T> {
    /// Bit `i` of `filled` is set exactly when `slots[i]` holds a value.
    Inline {
        filled: u16,
        slots: [MaybeUninit<T>; INLINE_SLOTS],
    },
    /// Dropped by [`Filled`]'s own drop, which so stays small enough to inline.
    Heap(ManuallyDrop<Vec<Option<T>>>),
}

impl<T> Filled<T> {
    #[inline]
    pub(super) fn new(len: usize) -> Filled<T> {
        if len <= INLINE_SLOTS {
            Filled::Inline {
                filled: 0,
                slots: [const { MaybeUninit::uninit() }; INLINE_SLOTS],
            }
        } else {
            let mut slots = Vec::with_capacity(len);
            slots.resize_with(len, || None);
            Filled::Heap(ManuallyDrop::new(slots))
        }
    }

    /// Whether slot `at` holds a value.
    #[inline]
    pub(super) fn is_set(&self, at: usize) -> bool {
        match self {
            Filled::Inline { filled, .. } => filled & (1 << at) != 0,
            Filled::Heap(slots) => slots[at].is_some(),
        }
    }

    /// Stores `value` in slot `at` (below the length given to [`Filled::new`]), dropping the
    /// value it held.
    #[inline]
    pub(super) fn put(&mut self, at: usize, value: T) {
        match self {
            Filled::Inline { filled, slots } => {
                let bit = 1u16 << at;
                if *filled & bit != 0 {
                    // SAFETY: a set bit marks an initialized slot; it is overwritten below.
                    unsafe { slots[at].assume_init_drop() };
                }
                slots[at].write(value);
                *filled |= bit;
            }
            Filled::Heap(slots) => slots[at] = Some(value),
        }
    }

    /// Takes the values out, in slot order.
    #[inline]
    pub(super) fn take(&mut self) -> Taken<'_, T> {
        Taken {
            slots: self,
            next: 0,
        }
    }
}

impl<T> Drop for Filled<T> {
    #[inline(always)]
    fn drop(&mut self) {
        // Most objects are parsed with every value taken out, or none put in.
        if !matches!(self, Filled::Inline { filled: 0, .. }) {
            self.release();
        }
    }
}

impl<T> Filled<T> {
    #[cold]
    #[inline(never)]
    fn release(&mut self) {
        match self {
            Filled::Inline { filled, slots } => {
                while *filled != 0 {
                    let at = filled.trailing_zeros() as usize;
                    *filled &= *filled - 1;
                    // SAFETY: the bit was set, so the slot is initialized; it is cleared
                    // first, so the value is dropped once.
                    unsafe { slots[at].assume_init_drop() };
                }
            }
            // SAFETY: dropped once, here, as `Filled` is dropped.
            Filled::Heap(slots) => unsafe { ManuallyDrop::drop(slots) },
        }
    }
}

/// The values of [`Filled`], taken out in slot order.
pub(super) struct Taken<'s, T> {
    slots: &'s mut Filled<T>,
    next: usize,
}

impl<T> Iterator for Taken<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self.slots {
            Filled::Inline { filled, slots } => {
                if *filled == 0 {
                    return None;
                }
                let at = filled.trailing_zeros() as usize;
                *filled &= *filled - 1;
                // SAFETY: the bit was set, so the slot is initialized; it is cleared first, so
                // the value is moved out once.
                Some(unsafe { slots[at].assume_init_read() })
            }
            Filled::Heap(slots) => {
                while let Some(slot) = slots.get_mut(self.next) {
                    self.next += 1;
                    if let Some(value) = slot.take() {
                        return Some(value);
                    }
                }
                None
            }
        }
    }
}

/// The value of each declared property, in declaration order, in slots of `Option`s: cheaper
/// than [`Filled`] where every slot is read once.
pub(super) enum Slots<T> {
    /// Only the first `len` slots are ever written, so only they are dropped.
    Inline(ManuallyDrop<[Option<T>; INLINE_SLOTS]>, usize),
    Heap(Vec<Option<T>>),
}

impl<T> Drop for Slots<T> {
    fn drop(&mut self) {
        if let Slots::Inline(slots, len) = self {
            slots[..*len].iter_mut().for_each(|slot| drop(slot.take()));
        }
    }
}

impl<T> Slots<T> {
    #[inline]
    pub(super) fn new(len: usize) -> Slots<T> {
        if len <= INLINE_SLOTS {
            Slots::Inline(ManuallyDrop::new(std::array::from_fn(|_| None)), len)
        } else {
            let mut slots = Vec::with_capacity(len);
            slots.resize_with(len, || None);
            Slots::Heap(slots)
        }
    }

    #[inline]
    pub(super) fn as_mut(&mut self) -> &mut [Option<T>] {
        match self {
            Slots::Inline(slots, len) => &mut slots[..*len],
            Slots::Heap(slots) => slots,
        }
    }
}

/// Most open records hold a few undeclared keys: they are kept on the stack.
const INLINE_EXTRAS: usize = 8;

/// A list that keeps its first [`INLINE_EXTRAS`] entries on the stack, and moves to the heap
/// past them.
pub(super) struct Extras<T> {
    /// `inline[taken..len]` are initialized (and only those), while `heap` is empty.
    len: usize,
    taken: usize,
    inline: [MaybeUninit<T>; INLINE_EXTRAS],
    /// Dropped by [`Extras`]'s own drop, which so stays small enough to inline.
    heap: ManuallyDrop<Vec<T>>,
}

impl<T> Extras<T> {
    #[inline]
    pub(super) fn new() -> Extras<T> {
        Extras {
            len: 0,
            taken: 0,
            inline: [const { MaybeUninit::uninit() }; INLINE_EXTRAS],
            heap: ManuallyDrop::new(Vec::new()),
        }
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0 && self.heap.is_empty()
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len + self.heap.len()
    }

    #[inline]
    pub(super) fn push(&mut self, value: T) {
        if self.heap.is_empty() && self.len < INLINE_EXTRAS {
            self.inline[self.len].write(value);
            self.len += 1;
            return;
        }
        if self.heap.is_empty() {
            self.heap.reserve(self.len * 2);
            let (start, end) = (self.taken, self.len);
            // Marked empty first: a panic while moving leaks rather than drops twice.
            (self.len, self.taken) = (0, 0);
            for slot in &mut self.inline[start..end] {
                // SAFETY: `start..end` were the initialized entries; each is moved out once.
                self.heap.push(unsafe { slot.assume_init_read() });
            }
        }
        self.heap.push(value);
    }

    /// The entries, in order.
    #[inline]
    pub(super) fn as_mut_slice(&mut self) -> &mut [T] {
        if !self.heap.is_empty() {
            return &mut self.heap;
        }
        let live = &mut self.inline[self.taken..self.len];
        // SAFETY: these entries are initialized, and `MaybeUninit<T>` has `T`'s layout.
        unsafe { &mut *(std::ptr::from_mut(live) as *mut [T]) }
    }

    /// Takes the entries out, in order.
    #[inline]
    pub(super) fn take(&mut self) -> TakenExtras<'_, T> {
        if self.heap.is_empty() {
            TakenExtras::Inline(self)
        } else {
            TakenExtras::Heap(std::mem::take(&mut *self.heap).into_iter())
        }
    }
}

impl<T> Drop for Extras<T> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.taken < self.len || self.heap.capacity() != 0 {
            self.release();
        }
    }
}

impl<T> Extras<T> {
    #[cold]
    #[inline(never)]
    fn release(&mut self) {
        while self.taken < self.len {
            // SAFETY: `taken..len` are the initialized entries left; `taken` moves past each
            // first, so each is dropped once.
            let at = self.taken;
            self.taken += 1;
            unsafe { self.inline[at].assume_init_drop() };
        }
        // SAFETY: dropped once, here, as `Extras` is dropped.
        unsafe { ManuallyDrop::drop(&mut self.heap) };
    }
}

/// The entries of [`Extras`], taken out in order.
pub(super) enum TakenExtras<'e, T> {
    Inline(&'e mut Extras<T>),
    Heap(std::vec::IntoIter<T>),
}

impl<T> Iterator for TakenExtras<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            TakenExtras::Inline(extras) => {
                if extras.taken == extras.len {
                    return None;
                }
                let at = extras.taken;
                extras.taken += 1;
                // SAFETY: `at` was in `taken..len`, so initialized; `taken` moved past it first,
                // so it is moved out once.
                Some(unsafe { extras.inline[at].assume_init_read() })
            }
            TakenExtras::Heap(items) => items.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Extras, Filled};
    use std::rc::Rc;

    #[test]
    fn slots_drop_each_value_once_and_take_in_order() {
        for len in [0usize, 3, 16, 17, 40] {
            let token = Rc::new(());
            let mut slots = Filled::new(len);
            let order: Vec<usize> = (0..len).rev().step_by(2).collect();
            for &at in &order {
                slots.put(at, (at, Rc::clone(&token)));
            }
            if let Some(&at) = order.first() {
                slots.put(at, (at, Rc::clone(&token)));
                assert!(slots.is_set(at));
            }
            assert_eq!(Rc::strong_count(&token), 1 + order.len());
            let mut sorted = order.clone();
            sorted.sort_unstable();
            let first: Vec<usize> = slots.take().take(1).map(|v| v.0).collect();
            assert_eq!(first, sorted.iter().copied().take(1).collect::<Vec<_>>());
            assert_eq!(Rc::strong_count(&token), 1 + order.len().saturating_sub(1));
            let rest: Vec<usize> = slots.take().map(|v| v.0).collect();
            assert_eq!(rest, sorted.iter().copied().skip(1).collect::<Vec<_>>());
            assert_eq!(Rc::strong_count(&token), 1);
            let mut again = Filled::new(len);
            for &at in &order {
                again.put(at, Rc::clone(&token));
            }
            drop(again);
            assert_eq!(Rc::strong_count(&token), 1);
        }
    }

    #[test]
    fn extras_keep_order_across_the_spill_and_drop_each_once() {
        for count in [0usize, 1, 8, 9, 30] {
            for taken in [0usize, 1, 5] {
                let token = Rc::new(());
                let mut extras = Extras::new();
                for at in 0..count {
                    extras.push((at, Rc::clone(&token)));
                }
                assert_eq!(extras.len(), count);
                assert_eq!(extras.is_empty(), count == 0);
                extras.as_mut_slice().reverse();
                let expect: Vec<usize> = (0..count).rev().collect();
                assert_eq!(
                    extras
                        .as_mut_slice()
                        .iter()
                        .map(|v| v.0)
                        .collect::<Vec<_>>(),
                    expect
                );
                let got: Vec<usize> = extras.take().take(taken).map(|v| v.0).collect();
                assert_eq!(got, expect[..taken.min(count)]);
                drop(extras);
                assert_eq!(Rc::strong_count(&token), 1);
            }
        }
    }
}
