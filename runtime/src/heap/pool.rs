//! A pool of large element buffers kept across collections.
//!
//! A program that allocates big arrays in a loop frees them by the dozen at
//! every collection. Handing those buffers back to the system allocator lets
//! it return the pages to the kernel (glibc trims a thread arena with
//! `madvise(MADV_DONTNEED)` once its free top passes the trim threshold), so
//! the next allocations fault every page in again and get it zeroed by the
//! kernel: thousands of system calls and page faults for memory the program
//! is about to use once more (issue 12, `arrays/bounded_memory.wdl`).
//!
//! Buffers of at least [`LARGE_BYTES`] are therefore allocated in whole
//! pages and, when freed, parked here by size instead of being returned.
//! The pool holds at most `limit` bytes, which the heap sets to its
//! collection threshold after every collection: the threshold grows
//! geometrically with the live data (`2 × live`), so the pool never keeps
//! more than the heap was already allowed to hold, and shrinks back when the
//! live data does. Parked memory is not live: the heap's byte accounting and
//! memory limit count only allocated objects, exactly as before.
//!
//! A fresh buffer comes from `alloc_zeroed` when the caller wants zeros
//! (glibc serves large requests from fresh, already zero pages without
//! writing them); a reused one is dirty and the caller is told so.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

use rustc_hash::FxHashMap;

/// Smallest buffer, in bytes, that is page-rounded and pooled.
pub(crate) const LARGE_BYTES: usize = 64 << 10;

/// Allocation granule of pooled buffers.
const PAGE: usize = 4096;

/// Bytes actually allocated for a word buffer of `bytes` requested bytes:
/// large buffers round up to whole pages, so buffers of nearby sizes share
/// a pool bucket. `None` on overflow.
pub(crate) fn rounded_bytes(bytes: usize) -> Option<usize> {
    if bytes < LARGE_BYTES {
        Some(bytes)
    } else {
        bytes.checked_add(PAGE - 1).map(|b| b & !(PAGE - 1))
    }
}

/// Parked large buffers by allocated size.
pub(crate) struct BufferPool {
    free: FxHashMap<usize, Vec<NonNull<u8>>>,
    /// Bytes parked.
    pooled: usize,
    /// Most bytes parked at once.
    limit: usize,
}

impl BufferPool {
    /// An empty pool that parks at most `limit` bytes.
    pub(crate) fn new(limit: usize) -> BufferPool {
        BufferPool {
            free: FxHashMap::default(),
            pooled: 0,
            limit,
        }
    }

    /// Bytes parked now.
    pub(crate) fn pooled_bytes(&self) -> usize {
        self.pooled
    }

    /// A buffer of exactly `size` allocated bytes (a value of
    /// [`rounded_bytes`], 8-aligned), and whether it is known to be zero.
    /// Reuses a parked buffer of that size when there is one; otherwise asks
    /// the system, zeroed when `want_zero`. `None` when the system refuses.
    pub(crate) fn alloc(&mut self, size: usize, want_zero: bool) -> Option<(NonNull<u8>, bool)> {
        debug_assert!(size > 0);
        if size >= LARGE_BYTES {
            if let Some(p) = self.free.get_mut(&size).and_then(Vec::pop) {
                self.pooled -= size;
                return Some((p, false));
            }
        }
        let layout = Layout::from_size_align(size, 8).ok()?;
        // SAFETY: the layout has non-zero size.
        let p = unsafe {
            if want_zero {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        NonNull::new(p).map(|p| (p, want_zero))
    }

    /// Takes back a buffer of `size` allocated bytes from [`BufferPool::alloc`]
    /// (or resized by `realloc` to such a size): parks it when it is large and
    /// fits under the limit, frees it otherwise.
    ///
    /// # Safety
    /// `p` must have been allocated with size `size` and alignment 8 by the
    /// global allocator and must not be used afterwards.
    pub(crate) unsafe fn free(&mut self, p: NonNull<u8>, size: usize) {
        if size >= LARGE_BYTES && self.pooled + size <= self.limit {
            self.pooled += size;
            self.free.entry(size).or_default().push(p);
            return;
        }
        // SAFETY: the caller promises this allocation's size and alignment.
        unsafe { alloc::dealloc(p.as_ptr(), Layout::from_size_align_unchecked(size, 8)) };
    }

    /// Sets the most bytes the pool may park, freeing parked buffers (largest
    /// first) until it is respected.
    pub(crate) fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
        if self.pooled <= limit {
            return;
        }
        let mut sizes: Vec<usize> = self.free.keys().copied().collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        for size in sizes {
            let Some(list) = self.free.get_mut(&size) else {
                continue;
            };
            while self.pooled > limit {
                let Some(p) = list.pop() else { break };
                self.pooled -= size;
                // SAFETY: parked buffers were allocated with this size and alignment 8.
                unsafe { alloc::dealloc(p.as_ptr(), Layout::from_size_align_unchecked(size, 8)) };
            }
            if list.is_empty() {
                self.free.remove(&size);
            }
            if self.pooled <= limit {
                break;
            }
        }
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        self.set_limit(0);
    }
}
