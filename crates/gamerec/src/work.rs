//! A per-thread count of the steps taken by the tree walks of
//! [`crate::model::MoveTree`] (paths to the root, pre-order and main-line
//! walks), for the tests that check that readers, writers and conversions
//! work in linear time: calling one of these walks per node makes the count
//! grow with the square of the tree. Not part of the API.

use std::cell::Cell;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// Adds `n` steps.
#[doc(hidden)]
#[inline]
pub fn count(n: u64) {
    STEPS.with(|s| s.set(s.get().wrapping_add(n)));
}

/// The steps counted on this thread so far.
#[doc(hidden)]
pub fn steps() -> u64 {
    STEPS.with(Cell::get)
}
