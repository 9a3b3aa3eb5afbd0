//! Raw allocation and release of heap objects with the layouts of
//! [`waddle_opt::abi`]: a fixed-size header struct plus an owned buffer
//! (string bytes or array elements, laid out by [`ElemLayout`]: a byte per
//! `bool`, a word per anything else).
//!
//! Every allocation goes through `std::alloc` with a null check, so a
//! request the system cannot satisfy is reported as `None` instead of
//! aborting the process. Array element buffers go through the heap's
//! [`BufferPool`], which keeps large freed buffers for reuse.

use std::alloc::{self, Layout};
use std::ptr::{self, NonNull};

use super::pool::{self, BufferPool};

use waddle_opt::abi::{obj_kind, ArrayObj, ElemLayout, ObjHeader, StrObj, Word};

/// Bytes accounted for each object on top of its header struct and its
/// buffer: the collector's bookkeeping (its entry in the object list and
/// in the address set, both grown by doubling) and the allocator's per
/// block overhead for the two blocks of an object. Counting them keeps the
/// process's memory within the limit plus a constant however small the
/// objects are. The AArch64 loader (`jit/src/cross/rt/heap.c`,
/// `OBJ_OVERHEAD`) counts the same, so every tier decides `out of memory`
/// by the same numbers.
pub const OBJECT_OVERHEAD: usize = 64;

/// Byte size accounted for an object: its header struct plus its buffer
/// plus [`OBJECT_OVERHEAD`].
///
/// # Safety
/// `obj` must point to a live object allocated by this module.
pub(crate) unsafe fn object_bytes(obj: *const ObjHeader) -> usize {
    // SAFETY: `obj` is live, so its header kind names its layout.
    unsafe {
        match (*obj).kind {
            obj_kind::STR => {
                OBJECT_OVERHEAD + size_of::<StrObj>() + (*(obj as *const StrObj)).len as usize
            }
            _ => {
                let layout = ElemLayout::of_header(&*obj);
                OBJECT_OVERHEAD
                    + size_of::<ArrayObj>()
                    + (*(obj as *const ArrayObj)).cap as usize * layout.size()
            }
        }
    }
}

/// Byte size of a string object holding `len` bytes, `None` on overflow.
pub(crate) fn str_bytes_for(len: usize) -> Option<usize> {
    (OBJECT_OVERHEAD + size_of::<StrObj>()).checked_add(len)
}

/// Byte size of an array object with capacity `cap` elements of `layout`,
/// `None` on overflow.
pub(crate) fn array_bytes_for(layout: ElemLayout, cap: usize) -> Option<usize> {
    layout
        .bytes_for(cap)?
        .checked_add(OBJECT_OVERHEAD + size_of::<ArrayObj>())
}

fn header(kind: u8) -> ObjHeader {
    ObjHeader {
        kind,
        marked: 0,
        elems_are_refs: 0,
        pinned: 0,
        byte_elems: 0,
        reserved: [0; 3],
    }
}

/// Memory layout of an element buffer of capacity `cap` (large ones
/// page-rounded, see [`pool::rounded_bytes`]; always word aligned, so a
/// byte buffer can be reused for words); `None` on overflow.
fn buffer_layout(elems: ElemLayout, cap: usize) -> Option<Layout> {
    let bytes = pool::rounded_bytes(elems.bytes_for(cap)?)?;
    Layout::from_size_align(bytes, align_of::<Word>()).ok()
}

/// Allocates a buffer of `cap` elements (`null` for `cap == 0`), and
/// whether it is known to hold zeros (it is when `want_zero` and it is fresh).
fn alloc_buffer(
    pool: &mut BufferPool,
    elems: ElemLayout,
    cap: usize,
    want_zero: bool,
) -> Option<(*mut u8, bool)> {
    if cap == 0 {
        return Some((ptr::null_mut(), true));
    }
    let layout = buffer_layout(elems, cap)?;
    let (p, zero) = pool.alloc(layout.size(), want_zero)?;
    Some((p.as_ptr(), zero))
}

/// Allocates a string object holding a copy of `bytes`.
pub(crate) fn new_str(bytes: &[u8]) -> Option<*mut StrObj> {
    new_str_with(bytes.len(), |buf| buf.copy_from_slice(bytes))
}

/// Allocates a string object of `len` bytes, zeroed and then written by
/// `fill`, so the text can be produced straight into the object (string
/// concatenation, `str(x)`) without a temporary copy.
pub(crate) fn new_str_with(len: usize, fill: impl FnOnce(&mut [u8])) -> Option<*mut StrObj> {
    let data = if len == 0 {
        ptr::null_mut()
    } else {
        let layout = Layout::array::<u8>(len).ok()?;
        // SAFETY: non-zero size.
        let p = unsafe { alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` is valid, initialized (zeroed) memory of `len` bytes.
        fill(unsafe { std::slice::from_raw_parts_mut(p, len) });
        p
    };
    // SAFETY: StrObj has non-zero size.
    let obj = unsafe { alloc::alloc(Layout::new::<StrObj>()) } as *mut StrObj;
    if obj.is_null() {
        if !data.is_null() {
            // SAFETY: allocated just above with this layout.
            unsafe { alloc::dealloc(data, Layout::array::<u8>(len).unwrap()) };
        }
        return None;
    }
    // SAFETY: `obj` is valid for writes of a StrObj.
    unsafe {
        obj.write(StrObj {
            header: header(obj_kind::STR),
            len: len as u64,
            ptr: data,
        })
    };
    Some(obj)
}

/// Allocates an array object with element layout `layout` and capacity
/// `cap` whose first `elems.len()` elements are `elems` (words; a `bool`
/// element keeps its low byte; `cap >= elems.len()`), and whether its
/// remaining capacity is known to hold zeros (asked for by `want_zero`).
pub(crate) fn new_array(
    pool: &mut BufferPool,
    elems: &[Word],
    cap: usize,
    layout: ElemLayout,
    want_zero: bool,
) -> Option<(*mut ArrayObj, bool)> {
    debug_assert!(cap >= elems.len());
    let (data, zero) = alloc_buffer(pool, layout, cap, want_zero)?;
    if !elems.is_empty() {
        match layout {
            ElemLayout::Byte => {
                for (i, &e) in elems.iter().enumerate() {
                    // SAFETY: `data` has room for `cap >= elems.len()` bytes.
                    unsafe { *data.add(i) = e as u8 };
                }
            }
            // SAFETY: `data` has room for `cap >= elems.len()` words and
            // is word aligned (`buffer_layout`).
            _ => unsafe {
                ptr::copy_nonoverlapping(elems.as_ptr(), data as *mut Word, elems.len())
            },
        }
    }
    // SAFETY: ArrayObj has non-zero size.
    let obj = unsafe { alloc::alloc(Layout::new::<ArrayObj>()) } as *mut ArrayObj;
    if obj.is_null() {
        // SAFETY: allocated just above with capacity `cap`, never used.
        unsafe { free_buffer(pool, data, layout, cap) };
        return None;
    }
    // SAFETY: `obj` is valid for writes of an ArrayObj.
    unsafe {
        obj.write(ArrayObj {
            header: layout.header(),
            len: elems.len() as u64,
            cap: cap as u64,
            data,
        })
    };
    Some((obj, zero))
}

/// Releases an element buffer of capacity `cap` to the pool.
///
/// # Safety
/// `data` must come from `alloc_buffer(_, layout, cap, _)` (or `grow_array`
/// to `cap`) and not be used afterwards.
unsafe fn free_buffer(pool: &mut BufferPool, data: *mut u8, layout: ElemLayout, cap: usize) {
    let (Some(p), Some(layout)) = (NonNull::new(data), buffer_layout(layout, cap)) else {
        return;
    };
    if cap > 0 {
        // SAFETY: allocated with this layout, per the caller.
        unsafe { pool.free(p, layout.size()) };
    }
}

/// Grows the element buffer of `arr` to `new_cap` elements, keeping its
/// elements. Returns `false` (leaving the array unchanged) when the memory
/// is not available.
///
/// # Safety
/// `arr` must be a live array object allocated by this module.
pub(crate) unsafe fn grow_array(arr: *mut ArrayObj, new_cap: usize) -> bool {
    // SAFETY: the caller promises a live array of this module.
    let a = unsafe { &mut *arr };
    let elems = ElemLayout::of_header(&a.header);
    let old_cap = a.cap as usize;
    if new_cap <= old_cap {
        return true;
    }
    let Some(new_layout) = buffer_layout(elems, new_cap) else {
        return false;
    };
    let p = match (
        a.data.is_null() || old_cap == 0,
        buffer_layout(elems, old_cap),
    ) {
        (false, Some(old_layout)) => {
            // SAFETY: `data` was allocated with `old_layout`; the new size is non-zero.
            unsafe { alloc::realloc(a.data, old_layout, new_layout.size()) }
        }
        // SAFETY: non-zero size.
        _ => unsafe { alloc::alloc(new_layout) },
    };
    if p.is_null() {
        return false;
    }
    a.data = p;
    a.cap = new_cap as u64;
    true
}

/// Frees an object and its buffer.
///
/// # Safety
/// `obj` must be a live object allocated by this module, not used afterwards.
pub(crate) unsafe fn free_object(pool: &mut BufferPool, obj: *mut ObjHeader) {
    // SAFETY: `obj` is live and was allocated here with the layouts used
    // below; the caller never uses it again.
    unsafe {
        match (*obj).kind {
            obj_kind::STR => {
                let s = obj as *mut StrObj;
                let len = (*s).len as usize;
                if len > 0 {
                    alloc::dealloc((*s).ptr as *mut u8, Layout::array::<u8>(len).unwrap());
                }
                alloc::dealloc(s as *mut u8, Layout::new::<StrObj>());
            }
            _ => {
                let a = obj as *mut ArrayObj;
                let layout = ElemLayout::of_header(&(*a).header);
                free_buffer(pool, (*a).data, layout, (*a).cap as usize);
                alloc::dealloc(a as *mut u8, Layout::new::<ArrayObj>());
            }
        }
    }
}
