//! Mark-sweep collection: mark from the roots (conservative candidate words
//! filtered through the address set, plus pinned objects), trace precisely
//! through arrays whose elements are references, then free every unmarked,
//! unpinned object and clear the marks of the survivors.

use waddle_opt::abi::{obj_kind, ArrayObj, ObjHeader, Word};

use super::object;
use super::{Heap, RootSource};

/// One full collection of `heap`.
pub(super) fn collect(heap: &mut Heap, roots: &[&dyn RootSource]) {
    let mut worklist: Vec<*mut ArrayObj> = Vec::new();
    {
        let index = &heap.index;
        let mark = |w: Word, worklist: &mut Vec<*mut ArrayObj>| {
            if !index.contains(&(w as usize)) {
                return;
            }
            let h = w as *mut ObjHeader;
            // SAFETY: `w` is the address of a tracked, live object.
            unsafe {
                if (*h).marked != 0 {
                    return;
                }
                (*h).marked = 1;
                if (*h).kind == obj_kind::ARRAY && (*h).elems_are_refs != 0 {
                    worklist.push(h as *mut ArrayObj);
                }
            }
        };
        for &obj in &heap.objects {
            // SAFETY: tracked object.
            if unsafe { (*obj).pinned } != 0 {
                mark(obj as Word, &mut worklist);
            }
        }
        for source in roots {
            source.visit_roots(&mut |w| mark(w, &mut worklist));
        }
        while let Some(arr) = worklist.pop() {
            // SAFETY: a marked, live array of references (word elements, word
            // aligned); its first `len` words are initialized.
            let elems: &[Word] = unsafe {
                let a = &*arr;
                if a.len == 0 {
                    &[]
                } else {
                    std::slice::from_raw_parts(a.data as *const Word, a.len as usize)
                }
            };
            for &e in elems {
                mark(e, &mut worklist);
            }
        }
    }
    sweep(heap);
}

fn sweep(heap: &mut Heap) {
    let mut freed_bytes = 0usize;
    let mut freed_objects = 0usize;
    let index = &mut heap.index;
    let pool = &mut heap.pool;
    heap.objects.retain(|&obj| {
        // SAFETY: tracked, live object.
        unsafe {
            if (*obj).marked != 0 || (*obj).pinned != 0 {
                (*obj).marked = 0;
                true
            } else {
                freed_bytes += object::object_bytes(obj);
                freed_objects += 1;
                index.remove(&(obj as usize));
                object::free_object(pool, obj);
                false
            }
        }
    });
    heap.stats.live_bytes -= freed_bytes;
    heap.stats.objects -= freed_objects;
}
