//! [`ResourceLimiter`]: the embedder's say over a store's memory growth
//! (wasmtime's `ResourceLimiter::memory_growing`), and the per-store stack
//! limit.
//!
//! The heap grows in [`MEMORY_PAGE`]-sized steps of *granted* memory: the
//! first allocation that would take the bytes in use past the memory
//! granted so far asks the limiter for the next multiple of a page that
//! covers it. A denied request collects garbage and retries within the
//! memory already granted before failing with `out of memory`; the grant
//! never shrinks (the wasm memory model: the limiter caps the high-water
//! mark). The store's hard memory limit
//! ([`crate::Config::memory_limit`]) still applies on top.

use super::store::Store;

/// Granularity of the memory grants a [`ResourceLimiter`] decides on:
/// 64 KiB, a WebAssembly page.
pub const MEMORY_PAGE: usize = 64 << 10;

/// Decides whether a store's heap may grow (set with
/// [`Store::set_limiter`]). Called on the thread running the script, in
/// the middle of an allocation: it must not call back into the store.
///
/// Any `FnMut(usize, usize, Option<usize>) -> bool + Send` closure is a
/// limiter.
///
/// ```
/// use waddle::{Engine, Module, Store, TrapCode};
/// let engine = Engine::default();
/// let module = Module::new(&engine, "m.wdl",
///     "fn big(n: int) -> int { var a = [0; n]; return len(a); }")?;
/// let mut store = Store::new(&engine);
/// // Allow at most 1 MiB, counting every request.
/// let mut asked = 0;
/// store.set_limiter(move |_current: usize, desired: usize, _max: Option<usize>| {
///     asked += 1;
///     desired <= 1 << 20
/// });
/// let instance = store.instantiate(&module)?;
/// let big = instance.typed_func::<(i64,), i64>(&store, "big")?;
/// assert_eq!(big.call(&mut store, (1000,))?, 1000);
/// let err = big.call(&mut store, (1_000_000,)).unwrap_err();   // 8 MB
/// assert_eq!(err.trap_code(), Some(TrapCode::OutOfMemory));
/// assert_eq!(big.call(&mut store, (1000,))?, 1000);             // still usable
/// # Ok::<(), waddle::Error>(())
/// ```
pub trait ResourceLimiter: Send {
    /// Whether the heap may grow from `current` granted bytes to `desired`
    /// (a multiple of [`MEMORY_PAGE`]); `maximum` is the store's hard
    /// memory limit, if any. Returning `false` makes the allocation fail
    /// with [`crate::TrapCode::OutOfMemory`] (after a collection, if that
    /// does not free enough).
    fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> bool;
}

impl<F: FnMut(usize, usize, Option<usize>) -> bool + Send> ResourceLimiter for F {
    fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> bool {
        self(current, desired, maximum)
    }
}

impl Store {
    /// Installs `limiter`, asked before the heap grows past the memory
    /// granted so far (see [`ResourceLimiter`]); replaces an earlier one.
    /// The memory in use when it is installed counts as granted.
    pub fn set_limiter(&mut self, limiter: impl ResourceLimiter + 'static) {
        self.runtime_mut()
            .heap_mut()
            .set_limiter(Some(Box::new(limiter)));
    }

    /// Sets the stack bytes a call into this store may use before it
    /// fails with [`crate::TrapCode::StackOverflow`] (default
    /// [`crate::Config::stack_budget`]), on every tier. Native code is also
    /// bounded by the calling thread's stack, keeping 256 KiB (or half of a
    /// smaller thread's stack) for runtime helpers and host functions, so
    /// a call on a thread with a small stack fails cleanly instead of
    /// overflowing it.
    ///
    /// ```
    /// use waddle::{Engine, Module, Store, TrapCode};
    /// let engine = Engine::default();
    /// let module = Module::new(&engine, "m.wdl",
    ///     "fn depth(n: int) -> int { if n == 0 { return 0; } return 1 + depth(n - 1); }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let depth = instance.typed_func::<(i64,), i64>(&store, "depth")?;
    /// assert_eq!(depth.call(&mut store, (10_000,))?, 10_000);
    /// store.set_stack_limit(16 << 10);
    /// let err = depth.call(&mut store, (10_000,)).unwrap_err();
    /// assert_eq!(err.trap_code(), Some(TrapCode::StackOverflow));
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn set_stack_limit(&mut self, bytes: usize) {
        self.set_stack_limit_inner(bytes);
    }

    /// Removes the limiter.
    pub fn clear_limiter(&mut self) {
        self.runtime_mut().heap_mut().set_limiter(None);
    }

    /// Bytes of heap memory granted so far (by the limiter, or, without
    /// one, the rounded-up high-water mark).
    pub fn memory_granted(&self) -> usize {
        self.runtime().heap().granted()
    }
}
