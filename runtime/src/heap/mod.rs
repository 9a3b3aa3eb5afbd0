//! The garbage-collected heap: string and array objects with the layouts of
//! [`waddle_opt::abi`], reclaimed by a non-moving mark-sweep collector.
//!
//! Design (docs/architecture.md, "runtime/"):
//! - Every object is tracked in a list plus an address set, so deciding
//!   whether an arbitrary word is an object address is O(1). This is what
//!   lets roots be scanned *conservatively* while tracing inside the heap
//!   stays *precise* (arrays know whether their elements are references).
//! - Root finding: the interpreter passes its frame slots; compiled code
//!   (T2) passes, from each allocating runtime helper, the whole native
//!   stack between the helper's frame and the Rust frame that entered
//!   compiled code, read as words. Cranelift keeps every reference-typed
//!   value in a stack slot across each call (stack-map spills), so every
//!   live array or string of a compiled frame is in that range; a stale
//!   word that happens to look like an object address only keeps garbage
//!   alive a little longer (`waddle_jit::abi`, "Garbage collection").
//!   No stack maps need decoding and no frame layout is shared between the
//!   tiers and the collector, which is why every tier can use it.
//! - Objects never move, so compiled code may hold raw addresses.
//! - Allocation happens in two steps: [`Heap::reserve`] (may collect, given
//!   the caller's roots) and then the non-collecting `alloc_*` calls. A host
//!   operation reserves everything it will allocate up front, so objects it
//!   creates midway never need rooting.
//! - A collection runs when the bytes in use would pass a threshold that
//!   grows with the live data (`max(2 × live, min_gc_threshold)`), so a
//!   program that allocates garbage in a loop runs in bounded memory.
//! - Pinned objects (interned string constants) are never freed.
//! - Large array buffers freed by a collection are kept in a pool (bounded
//!   by the collection threshold) and reused, instead of being returned to
//!   the system and faulted back in by the next allocations ([`pool`]).

mod gc;
mod object;
mod pool;
mod roots;

pub use roots::{Conservative, RootSource, Typed};

use rustc_hash::FxHashSet;
use waddle_opt::abi::{array_set, ArrayObj, ElemLayout, ObjHeader, TrapCode, Word};

/// Tunables of the heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapConfig {
    /// Most bytes the heap may hold at once (`None`: limited only by what
    /// the system gives, capped at half the physical memory when known).
    pub memory_limit: Option<usize>,
    /// Smallest collection threshold in bytes.
    pub min_gc_threshold: usize,
    /// Stress mode for testing the collector: collect before every allocation.
    pub stress: bool,
}

impl Default for HeapConfig {
    fn default() -> Self {
        HeapConfig {
            memory_limit: None,
            min_gc_threshold: 8 << 20,
            stress: false,
        }
    }
}

/// Counters describing the heap, for tests, benchmarks and the REPL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeapStats {
    /// Bytes currently allocated (live or not yet collected).
    pub live_bytes: usize,
    /// Largest value `live_bytes` ever had.
    pub peak_bytes: usize,
    /// Objects currently allocated.
    pub objects: usize,
    /// Number of collections run.
    pub collections: u64,
    /// Bytes allocated over the heap's lifetime.
    pub total_allocated: u64,
}

/// The heap and its collector.
pub struct Heap {
    objects: Vec<*mut ObjHeader>,
    index: FxHashSet<usize>,
    stats: HeapStats,
    limit: Option<usize>,
    min_threshold: usize,
    next_gc: usize,
    stress: bool,
    pool: pool::BufferPool,
    /// Bytes the heap may use without asking `limiter` (a multiple of
    /// [`crate::api::MEMORY_PAGE`]; never shrinks).
    granted: usize,
    /// The embedder's say over growth past `granted`.
    limiter: Option<Box<dyn crate::api::ResourceLimiter>>,
}

// SAFETY: the heap exclusively owns every object it tracks; raw pointers
// are only dereferenced through `&mut self`/`&self` methods.
unsafe impl Send for Heap {}

impl Default for Heap {
    fn default() -> Self {
        Heap::new(HeapConfig::default())
    }
}

impl Heap {
    /// An empty heap.
    pub fn new(config: HeapConfig) -> Heap {
        let limit = config.memory_limit.or_else(system_memory_cap);
        Heap {
            objects: Vec::new(),
            index: FxHashSet::default(),
            stats: HeapStats::default(),
            limit,
            min_threshold: config.min_gc_threshold,
            next_gc: config.min_gc_threshold,
            stress: config.stress,
            pool: pool::BufferPool::new(config.min_gc_threshold),
            granted: 0,
            limiter: None,
        }
    }

    /// Current counters.
    pub fn stats(&self) -> HeapStats {
        self.stats.clone()
    }

    /// The byte limit in force, if any.
    pub fn memory_limit(&self) -> Option<usize> {
        self.limit
    }

    /// Whether `w` is exactly the address of an object of this heap.
    pub fn contains(&self, w: Word) -> bool {
        self.index.contains(&(w as usize))
    }

    /// Makes sure `bytes` more bytes may be allocated, collecting first
    /// (with `roots` plus the heap's pinned objects as roots) when the
    /// collection threshold or the memory limit would be passed.
    /// `OutOfMemory` when even after collecting they do not fit the limit.
    pub fn reserve(&mut self, bytes: usize, roots: &[&dyn RootSource]) -> Result<(), TrapCode> {
        let want = self
            .stats
            .live_bytes
            .checked_add(bytes)
            .ok_or(TrapCode::OutOfMemory)?;
        let over_limit = |heap: &Heap, want: usize| heap.limit.is_some_and(|l| want > l);
        let mut collected = false;
        let mut want = want;
        if self.stress || want > self.next_gc || over_limit(self, want) {
            self.collect(roots);
            collected = true;
            want = self
                .stats
                .live_bytes
                .checked_add(bytes)
                .ok_or(TrapCode::OutOfMemory)?;
            if over_limit(self, want) {
                return Err(TrapCode::OutOfMemory);
            }
        }
        if want > self.granted && !self.grow_grant(want) {
            // Denied: make room within what is granted, if garbage allows.
            if !collected {
                self.collect(roots);
            }
            let want = self
                .stats
                .live_bytes
                .checked_add(bytes)
                .ok_or(TrapCode::OutOfMemory)?;
            if want > self.granted {
                return Err(TrapCode::OutOfMemory);
            }
        }
        Ok(())
    }

    /// Raises the grant to cover `want` bytes, asking the limiter (if
    /// any); `false` when it refuses.
    fn grow_grant(&mut self, want: usize) -> bool {
        let page = crate::api::MEMORY_PAGE;
        let desired = want.div_ceil(page).saturating_mul(page);
        if let Some(limiter) = &mut self.limiter {
            if !limiter.memory_growing(self.granted, desired, self.limit) {
                return false;
            }
        }
        self.granted = desired;
        true
    }

    /// Installs (or removes) the growth limiter; what is in use now counts
    /// as granted.
    pub(crate) fn set_limiter(&mut self, limiter: Option<Box<dyn crate::api::ResourceLimiter>>) {
        let page = crate::api::MEMORY_PAGE;
        let used = self.stats.live_bytes.div_ceil(page).saturating_mul(page);
        self.granted = self.granted.max(used);
        self.limiter = limiter;
    }

    /// Bytes granted so far (see [`crate::api::ResourceLimiter`]).
    pub fn granted(&self) -> usize {
        self.granted
    }

    fn account(&mut self, obj: *mut ObjHeader, bytes: usize) {
        self.objects.push(obj);
        self.index.insert(obj as usize);
        self.stats.objects += 1;
        self.add_bytes(bytes);
    }

    fn add_bytes(&mut self, bytes: usize) {
        self.stats.live_bytes += bytes;
        self.stats.total_allocated += bytes as u64;
        self.stats.peak_bytes = self.stats.peak_bytes.max(self.stats.live_bytes);
    }

    fn check_limit(&self, bytes: usize) -> Result<(), TrapCode> {
        match (self.limit, self.stats.live_bytes.checked_add(bytes)) {
            (_, None) => Err(TrapCode::OutOfMemory),
            (Some(l), Some(w)) if w > l => Err(TrapCode::OutOfMemory),
            _ => Ok(()),
        }
    }

    /// Allocates a string object with a copy of `bytes` (never collects).
    pub fn alloc_str(&mut self, bytes: &[u8]) -> Result<Word, TrapCode> {
        let size = object::str_bytes_for(bytes.len()).ok_or(TrapCode::OutOfMemory)?;
        self.check_limit(size)?;
        let obj = object::new_str(bytes).ok_or(TrapCode::OutOfMemory)?;
        self.account(obj as *mut ObjHeader, size);
        Ok(obj as Word)
    }

    /// Allocates a string object of `len` bytes written by `fill` (never
    /// collects; reserve [`str_object_bytes`]`(len)` first).
    pub fn alloc_str_with(
        &mut self,
        len: usize,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<Word, TrapCode> {
        let size = object::str_bytes_for(len).ok_or(TrapCode::OutOfMemory)?;
        self.check_limit(size)?;
        let obj = object::new_str_with(len, fill).ok_or(TrapCode::OutOfMemory)?;
        self.account(obj as *mut ObjHeader, size);
        Ok(obj as Word)
    }

    /// Allocates a pinned string (an interned constant). It is exempt from
    /// the memory limit and never collects; the process aborts only if the
    /// system cannot provide these few bytes.
    pub fn alloc_pinned_str(&mut self, bytes: &[u8]) -> Word {
        let size = object::str_bytes_for(bytes.len()).unwrap_or(usize::MAX);
        let Some(obj) = object::new_str(bytes) else {
            let layout = std::alloc::Layout::from_size_align(size.max(1), 8)
                .unwrap_or(std::alloc::Layout::new::<u64>());
            std::alloc::handle_alloc_error(layout)
        };
        // SAFETY: just allocated.
        unsafe { (*obj).header.pinned = 1 };
        self.account(obj as *mut ObjHeader, size);
        obj as Word
    }

    /// Allocates an array object holding `elems` with room for `cap`
    /// elements (at least `elems.len()`), stored as `layout` says (which
    /// also tells the collector whether the elements are references).
    /// Never collects.
    pub fn alloc_array(
        &mut self,
        elems: &[Word],
        cap: usize,
        layout: ElemLayout,
    ) -> Result<Word, TrapCode> {
        let cap = cap.max(elems.len());
        let size = object::array_bytes_for(layout, cap).ok_or(TrapCode::OutOfMemory)?;
        self.check_limit(size)?;
        let (obj, _) = object::new_array(&mut self.pool, elems, cap, layout, false)
            .ok_or(TrapCode::OutOfMemory)?;
        self.account(obj as *mut ObjHeader, size);
        Ok(obj as Word)
    }

    /// Allocates an array of `len` copies of `fill` (never collects). A
    /// zero `fill` (0, 0.0, false) is written only when the buffer is not
    /// fresh from the system, which hands out zeroed pages.
    pub fn alloc_array_filled(
        &mut self,
        fill: Word,
        len: usize,
        layout: ElemLayout,
    ) -> Result<Word, TrapCode> {
        let size = object::array_bytes_for(layout, len).ok_or(TrapCode::OutOfMemory)?;
        self.check_limit(size)?;
        let fill = if layout == ElemLayout::Byte {
            fill & 0xff
        } else {
            fill
        };
        let (obj, zero) = object::new_array(&mut self.pool, &[], len, layout, fill == 0)
            .ok_or(TrapCode::OutOfMemory)?;
        self.account(obj as *mut ObjHeader, size);
        // SAFETY: just allocated with capacity `len` elements of `layout`
        // (a word buffer is word aligned).
        unsafe {
            let a = &mut *obj;
            if len > 0 {
                if fill == 0 {
                    if !zero {
                        a.data.write_bytes(0, len * layout.size());
                    }
                } else if layout == ElemLayout::Byte {
                    a.data.write_bytes(fill as u8, len);
                } else {
                    std::slice::from_raw_parts_mut(a.data as *mut Word, len).fill(fill);
                }
            }
            a.len = len as u64;
        }
        Ok(obj as Word)
    }

    /// Bytes that must be free to push one element onto `arr`: when the
    /// buffer is full, the whole grown buffer, because the old one is only
    /// released after its elements have been copied (afterwards only the
    /// difference stays accounted).
    ///
    /// # Safety
    /// `arr` must be a live array object of this heap.
    pub unsafe fn push_cost(&self, arr: Word) -> usize {
        // SAFETY: the caller promises a live array of this heap.
        let a = unsafe { &*(arr as *const ArrayObj) };
        if a.len < a.cap {
            0
        } else {
            let size = ElemLayout::of_header(&a.header).size();
            grown_capacity(a.cap as usize).saturating_mul(size)
        }
    }

    /// Appends `value` to the array `arr`, growing its buffer (never
    /// collects; call [`Heap::reserve`] with [`Heap::push_cost`] first).
    pub fn push(&mut self, arr: Word, value: Word) -> Result<(), TrapCode> {
        if !self.contains(arr) {
            return Err(TrapCode::OutOfMemory);
        }
        let a = arr as *mut ArrayObj;
        // SAFETY: `arr` is a tracked object; the interpreter only passes arrays here.
        unsafe {
            if (*a).header.kind != waddle_opt::abi::obj_kind::ARRAY {
                return Err(TrapCode::OutOfMemory);
            }
            if (*a).len == (*a).cap {
                let size = ElemLayout::of_header(&(*a).header).size();
                let old = (*a).cap as usize;
                let new = grown_capacity(old);
                let extra = (new - old).checked_mul(size).ok_or(TrapCode::OutOfMemory)?;
                // The old buffer stays until the copy is made.
                self.check_limit(new.checked_mul(size).ok_or(TrapCode::OutOfMemory)?)?;
                if !object::grow_array(a, new) {
                    return Err(TrapCode::OutOfMemory);
                }
                self.add_bytes(extra);
            }
            array_set(arr, (*a).len as usize, value);
            (*a).len += 1;
        }
        Ok(())
    }

    /// Marks `w` (an object of this heap) as never to be freed.
    pub fn pin(&mut self, w: Word) {
        if self.contains(w) {
            // SAFETY: tracked object.
            unsafe { (*(w as *mut ObjHeader)).pinned = 1 };
        }
    }

    /// Runs a full collection with `roots` (plus pinned objects) as roots.
    pub fn collect(&mut self, roots: &[&dyn RootSource]) {
        gc::collect(self, roots);
        self.stats.collections += 1;
        self.next_gc = self
            .stats
            .live_bytes
            .saturating_mul(2)
            .max(self.min_threshold);
        self.pool.set_limit(self.next_gc);
    }

    /// Bytes of freed array buffers kept for reuse (not live, not counted
    /// against the memory limit).
    pub fn pooled_bytes(&self) -> usize {
        self.pool.pooled_bytes()
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        self.pool.set_limit(0);
        for &obj in &self.objects {
            // SAFETY: every tracked object is live and owned by the heap.
            unsafe { object::free_object(&mut self.pool, obj) };
        }
    }
}

/// Bytes accounted for a string object of `len` bytes (`None` on overflow).
pub fn str_object_bytes(len: usize) -> Option<usize> {
    object::str_bytes_for(len)
}

/// Bytes accounted for an array object of capacity `cap` with elements laid
/// out as `layout` (`None` on overflow).
pub fn array_object_bytes(layout: ElemLayout, cap: usize) -> Option<usize> {
    object::array_bytes_for(layout, cap)
}

/// Capacity after growing an array buffer of capacity `cap`.
fn grown_capacity(cap: usize) -> usize {
    cap.saturating_mul(2).max(4)
}

/// Half the physical memory, when the system tells it (Linux `/proc/meminfo`).
fn system_memory_cap() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024) / 2)
}

#[cfg(test)]
mod tests;
