use super::*;
use waddle_opt::abi::{array_bytes, array_get, array_layout, array_to_vec, array_words, str_bytes};
use waddle_opt::ir::Type;

fn none() -> [&'static dyn RootSource; 0] {
    []
}

#[test]
fn unreachable_objects_are_freed_and_roots_kept() {
    let mut heap = Heap::default();
    let s = heap.alloc_str(b"hello").unwrap();
    let garbage = heap.alloc_str(b"garbage").unwrap();
    let arr = heap.alloc_array(&[s], 1, ElemLayout::Ref).unwrap();
    assert_eq!(heap.stats().objects, 3);
    let roots = [arr];
    heap.collect(&[&Conservative(&roots)]);
    assert_eq!(heap.stats().objects, 2);
    assert!(heap.contains(arr) && heap.contains(s) && !heap.contains(garbage));
    // SAFETY: `s` survived the collection.
    assert_eq!(unsafe { str_bytes(s) }, b"hello");
    heap.collect(&none());
    assert_eq!(heap.stats().objects, 0);
    assert_eq!(heap.stats().live_bytes, 0);
}

#[test]
fn conservative_roots_ignore_non_addresses() {
    let mut heap = Heap::default();
    let s = heap.alloc_str(b"x").unwrap();
    // Interior pointers and small integers are not roots.
    let roots = [s + 1, 0, 42, u64::MAX];
    heap.collect(&[&Conservative(&roots)]);
    assert_eq!(heap.stats().objects, 0);
}

#[test]
fn scalar_arrays_are_not_traced() {
    let mut heap = Heap::default();
    let s = heap.alloc_str(b"x").unwrap();
    // An int array whose element happens to equal an object address.
    let ints = heap.alloc_array(&[s], 1, ElemLayout::Word).unwrap();
    heap.collect(&[&Conservative(&[ints])]);
    assert!(heap.contains(ints));
    assert!(!heap.contains(s));
}

#[test]
fn nested_arrays_are_traced_precisely() {
    let mut heap = Heap::default();
    let inner = heap.alloc_array(&[1, 2, 3], 3, ElemLayout::Word).unwrap();
    let mid = heap.alloc_array(&[inner], 1, ElemLayout::Ref).unwrap();
    let outer = heap.alloc_array(&[mid, mid], 2, ElemLayout::Ref).unwrap();
    let types = [
        Type::Int
            .array_of()
            .unwrap()
            .array_of()
            .unwrap()
            .array_of()
            .unwrap(),
        Type::Int,
    ];
    let globals = [outer, inner];
    heap.collect(&[&Typed {
        words: &globals,
        types: &types,
    }]);
    assert_eq!(heap.stats().objects, 3);
    // SAFETY: survived.
    assert_eq!(unsafe { array_words(inner) }, &[1, 2, 3]);
}

#[test]
fn typed_roots_skip_scalars() {
    let mut heap = Heap::default();
    let s = heap.alloc_str(b"x").unwrap();
    heap.collect(&[&Typed {
        words: &[s],
        types: &[Type::Int],
    }]);
    assert_eq!(heap.stats().objects, 0);
}

#[test]
fn pinned_objects_survive() {
    let mut heap = Heap::default();
    let s = heap.alloc_str(b"const").unwrap();
    heap.pin(s);
    heap.collect(&none());
    heap.collect(&none());
    assert!(heap.contains(s));
}

#[test]
fn push_grows_and_accounts() {
    let mut heap = Heap::default();
    let a = heap.alloc_array(&[], 0, ElemLayout::Word).unwrap();
    for i in 0..1000 {
        // SAFETY: live array.
        let cost = unsafe { heap.push_cost(a) };
        heap.reserve(cost, &[&Conservative(&[a])]).unwrap();
        heap.push(a, i).unwrap();
    }
    // SAFETY: live array.
    let elems = unsafe { array_words(a) };
    assert_eq!(elems.len(), 1000);
    assert!(elems.iter().enumerate().all(|(i, &e)| e == i as u64));
    let s = heap.stats();
    assert!(s.live_bytes >= 8000 && s.live_bytes < 8000 * 3, "{s:?}");
}

#[test]
fn memory_limit_gives_out_of_memory() {
    let mut heap = Heap::new(HeapConfig {
        memory_limit: Some(1 << 20),
        min_gc_threshold: 1 << 16,
        stress: false,
    });
    assert_eq!(heap.reserve(2 << 20, &none()), Err(TrapCode::OutOfMemory));
    assert_eq!(
        heap.alloc_array(&[], 1 << 18, ElemLayout::Word),
        Err(TrapCode::OutOfMemory)
    );
    // Garbage is collected to make room before giving up.
    for _ in 0..100 {
        heap.reserve(100_000, &none()).unwrap();
        heap.alloc_array(&[], 12_000, ElemLayout::Word).unwrap();
    }
    assert!(heap.stats().peak_bytes <= 1 << 20);
}

#[test]
fn absurd_sizes_are_out_of_memory_not_aborts() {
    let mut heap = Heap::new(HeapConfig {
        memory_limit: Some(usize::MAX),
        min_gc_threshold: 1 << 20,
        stress: false,
    });
    assert_eq!(
        heap.alloc_array(&[], usize::MAX / 4, ElemLayout::Word),
        Err(TrapCode::OutOfMemory)
    );
    assert_eq!(
        heap.alloc_array(&[], 1 << 60, ElemLayout::Word),
        Err(TrapCode::OutOfMemory)
    );
    assert_eq!(heap.stats().objects, 0);
    let s = heap.alloc_str(b"x").unwrap();
    // live + requested overflows.
    assert_eq!(
        heap.reserve(usize::MAX, &[&Conservative(&[s])]),
        Err(TrapCode::OutOfMemory)
    );
}

#[test]
fn threshold_triggers_collections_in_a_garbage_loop() {
    let mut heap = Heap::new(HeapConfig {
        memory_limit: None,
        min_gc_threshold: 1 << 20,
        stress: false,
    });
    let keep = heap.alloc_str(b"kept").unwrap();
    for _ in 0..1000 {
        let size = object::array_bytes_for(ElemLayout::Word, 10_000).unwrap();
        heap.reserve(size, &[&Conservative(&[keep])]).unwrap();
        heap.alloc_array_filled(7, 10_000, ElemLayout::Word)
            .unwrap();
    }
    let s = heap.stats();
    assert!(s.collections >= 50, "{s:?}");
    assert!(s.peak_bytes <= (1 << 20) + 100_000, "{s:?}");
    assert!(heap.contains(keep));
}

#[test]
fn large_buffers_are_reused_and_zero_fill_stays_exact() {
    let mut heap = Heap::new(HeapConfig {
        memory_limit: None,
        min_gc_threshold: 4 << 20,
        stress: false,
    });
    let n = 100_000;
    let dirty = heap.alloc_array_filled(7, n, ElemLayout::Word).unwrap();
    // SAFETY: live array.
    unsafe { assert!(array_words(dirty).iter().all(|&e| e == 7)) };
    heap.collect(&none());
    assert_eq!(heap.stats().live_bytes, 0);
    assert!(heap.pooled_bytes() >= n * 8, "the freed buffer is parked");
    // The parked (dirty) buffer comes back and must still read as zeros.
    let zeros = heap.alloc_array_filled(0, n, ElemLayout::Word).unwrap();
    assert_eq!(heap.pooled_bytes(), 0);
    // SAFETY: live array.
    unsafe { assert!(array_words(zeros).iter().all(|&e| e == 0)) };
    // Accounting counts the requested capacity, not the page-rounded buffer.
    assert_eq!(
        heap.stats().live_bytes,
        object::array_bytes_for(ElemLayout::Word, n).unwrap()
    );
    // A pushed-onto array keeps its elements across a grow from a pooled size.
    for i in 0..10 {
        // SAFETY: live array.
        let cost = unsafe { heap.push_cost(zeros) };
        heap.reserve(cost, &[&Conservative(&[zeros])]).unwrap();
        heap.push(zeros, i).unwrap();
    }
    // SAFETY: live array.
    let elems = unsafe { array_words(zeros) };
    assert_eq!(elems.len(), n + 10);
    assert!(elems[..n].iter().all(|&e| e == 0));
    assert_eq!(&elems[n..], &(0..10).collect::<Vec<u64>>()[..]);
}

#[test]
fn bool_arrays_take_one_byte_per_element() {
    let mut heap = Heap::new(HeapConfig {
        memory_limit: None,
        min_gc_threshold: 1 << 30,
        stress: false,
    });
    let n = 1000;
    let flags = heap.alloc_array_filled(1, n, ElemLayout::Byte).unwrap();
    let header = object::OBJECT_OVERHEAD + size_of::<ArrayObj>();
    assert_eq!(heap.stats().live_bytes, header + n);
    assert_eq!(
        object::array_bytes_for(ElemLayout::Byte, n),
        Some(header + n)
    );
    assert_eq!(
        object::array_bytes_for(ElemLayout::Word, n),
        Some(header + 8 * n)
    );
    // SAFETY: a live array of this heap.
    unsafe {
        assert_eq!(array_layout(flags), ElemLayout::Byte);
        assert_eq!(array_bytes(flags), &[1u8; 1000][..]);
        assert_eq!(object::object_bytes(flags as *const ObjHeader), header + n);
    }
    // Pushing grows the buffer by bytes, and the elements stay intact
    // across the grow and a collection (bools hold no references).
    let small = heap.alloc_array(&[1, 0, 1], 3, ElemLayout::Byte).unwrap();
    for i in 0..13u64 {
        // SAFETY: a live array of this heap.
        let cost = unsafe { heap.push_cost(small) };
        assert!(cost <= 32, "{cost}");
        heap.reserve(cost, &[&Conservative(&[flags, small])])
            .unwrap();
        heap.push(small, i % 2).unwrap();
    }
    heap.collect(&[&Conservative(&[flags, small])]);
    // SAFETY: live arrays (rooted above).
    unsafe {
        let want: Vec<u64> = [1, 0, 1]
            .into_iter()
            .chain((0..13).map(|i| i % 2))
            .collect();
        assert_eq!(array_to_vec(small), want);
        assert_eq!(array_get(small, 2), 1);
        assert_eq!(array_bytes(flags).len(), n);
        let cap = (*(small as *const ArrayObj)).cap as usize;
        assert_eq!(
            heap.stats().live_bytes,
            header + n + header + cap,
            "both arrays accounted by bytes"
        );
    }
    // A zero fill of a byte array reuses a dirty pooled buffer correctly.
    heap.collect(&none());
    let big = 1 << 20;
    let ones = heap
        .alloc_array_filled(0x101, big, ElemLayout::Byte)
        .unwrap();
    // SAFETY: a live array; a fill keeps the low byte.
    unsafe { assert!(array_bytes(ones).iter().all(|&b| b == 1)) };
    heap.collect(&none());
    let zeros = heap.alloc_array_filled(0, big, ElemLayout::Byte).unwrap();
    // SAFETY: a live array.
    unsafe { assert!(array_bytes(zeros).iter().all(|&b| b == 0)) };
}

#[test]
fn the_pool_stays_under_the_collection_threshold() {
    let threshold = 1 << 20;
    let mut heap = Heap::new(HeapConfig {
        memory_limit: Some(4 << 20),
        min_gc_threshold: threshold,
        stress: false,
    });
    for round in 0..200 {
        let cap = 20_000 + (round % 7) * 3_000;
        let size = object::array_bytes_for(ElemLayout::Word, cap).unwrap();
        heap.reserve(size, &none()).unwrap();
        heap.alloc_array_filled(round as u64, cap, ElemLayout::Word)
            .unwrap();
        assert!(heap.pooled_bytes() <= threshold);
    }
    let s = heap.stats();
    assert!(s.collections > 10, "{s:?}");
    assert!(s.peak_bytes <= 4 << 20, "{s:?}");
    heap.collect(&none());
    assert!(heap.pooled_bytes() <= threshold);
}

/// The AArch64 loader accounts objects with the same overhead.
#[test]
fn loader_counts_the_same_object_overhead() {
    let heap_c = include_str!("../../../jit/src/cross/rt/heap.c");
    let want = format!("#define OBJ_OVERHEAD {}", object::OBJECT_OVERHEAD);
    assert!(heap_c.contains(&want), "heap.c lacks `{want}`");
}
