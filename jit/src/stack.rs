//! The bounds of the calling thread's native stack, so compiled code never
//! runs past its end whatever stack budget the embedder configured.
//!
//! On Linux the lowest usable address comes from `pthread_getattr_np`
//! (which also covers the main thread, whose size follows `RLIMIT_STACK`);
//! it is cached per thread. Elsewhere it is unknown and the stack budget
//! alone bounds recursion.

use std::cell::Cell;

/// Bytes kept free above the lowest stack address (the guard page and
/// whatever the C library reserves).
const GUARD_SLACK: usize = 64 << 10;

thread_local! {
    static BOUNDS: Cell<Option<Option<(usize, usize)>>> = const { Cell::new(None) };
}

/// The lowest address compiled code plus its helpers may use on this
/// thread's stack, if known.
#[cfg(test)]
pub(crate) fn thread_stack_low() -> Option<usize> {
    thread_stack_bounds().map(|(low, _)| low)
}

/// The lowest address compiled code plus its helpers may use on this
/// thread's stack and the bytes usable above it (the thread's stack size
/// less the guard slack), if known.
pub(crate) fn thread_stack_bounds() -> Option<(usize, usize)> {
    BOUNDS.with(|c| match c.get() {
        Some(v) => v,
        None => {
            let v = query().map(|(lo, size)| (lo + GUARD_SLACK, size.saturating_sub(GUARD_SLACK)));
            c.set(Some(v));
            v
        }
    })
}

#[cfg(target_os = "linux")]
fn query() -> Option<(usize, usize)> {
    // SAFETY: `attr` is initialized by `pthread_getattr_np` before it is
    // read and destroyed afterwards; the out-pointers are valid locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let r = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        (r == 0 && !addr.is_null()).then_some((addr as usize, size))
    }
}

#[cfg(not(target_os = "linux"))]
fn query() -> Option<(usize, usize)> {
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_current_frame_is_above_the_low_end() {
        let marker = 0u64;
        let here = std::hint::black_box(&marker) as *const u64 as usize;
        if let Some(lo) = super::thread_stack_low() {
            assert!(lo < here);
        }
    }
}
