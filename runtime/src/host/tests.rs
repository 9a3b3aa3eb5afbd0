use super::*;

fn rt() -> Runtime {
    Runtime::new(HeapConfig::default(), OutputSink::Capture, None)
}

fn int_arr() -> Type {
    Type::Int.array_of().unwrap()
}

fn text(rt: &mut Runtime, ty: Type, v: Word) -> String {
    let s = rt.to_str(ty, v, &[]).unwrap();
    // SAFETY: a live string just made.
    String::from_utf8(unsafe { str_bytes(s) }.to_vec()).unwrap()
}

#[test]
fn interning_is_deduplicated_and_pinned() {
    let mut rt = rt();
    let a = rt.intern_str("hello");
    let b = rt.intern_str("hello");
    let c = rt.intern_str("world");
    assert_eq!(a, b);
    assert_ne!(a, c);
    rt.collect(&[]);
    assert!(rt.heap().contains(a) && rt.heap().contains(c));
}

#[test]
fn globals_get_zero_values() {
    let mut rt = rt();
    let types = [
        Type::Int,
        Type::Float,
        Type::Bool,
        Type::Str,
        int_arr(),
        int_arr(),
    ];
    rt.add_globals(&types).unwrap();
    let g = rt.globals().to_vec();
    assert_eq!(&g[..3], &[0, 0, 0]);
    assert_eq!(text(&mut rt, Type::Str, g[3]), "");
    assert_eq!(text(&mut rt, int_arr(), g[4]), "[]");
    assert_ne!(g[4], g[5], "each array global gets a fresh array");
    // Globals are roots.
    rt.collect(&[]);
    assert!(rt.heap().contains(g[4]) && rt.heap().contains(g[5]));
    rt.array_push(g[4], 7, &[]).unwrap();
    assert_eq!(text(&mut rt, int_arr(), g[4]), "[7]");
}

#[test]
fn repeat_deep_copies_nested_arrays() {
    let mut rt = rt();
    let row = rt.array_repeat(Type::Int, 0, 2, &[]).unwrap();
    let grid = rt.array_repeat(int_arr(), row, 2, &[row]).unwrap();
    let grid_t = int_arr().array_of().unwrap();
    let cube = rt.array_repeat(grid_t, grid, 2, &[grid]).unwrap();
    let cube_t = grid_t.array_of().unwrap();
    assert_eq!(
        text(&mut rt, cube_t, cube),
        "[[[0, 0], [0, 0]], [[0, 0], [0, 0]]]"
    );
    // No level is shared, and nothing aliases the original.
    // SAFETY: live arrays.
    unsafe {
        let planes = array_words(cube);
        assert_ne!(planes[0], planes[1]);
        assert_ne!(planes[0], grid);
        let rows0 = array_words(planes[0]);
        let rows1 = array_words(planes[1]);
        let mut all = vec![rows0[0], rows0[1], rows1[0], rows1[1], row];
        all.extend(array_words(grid).iter().copied());
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 7);
        array_words(rows0[0])[1] = 5;
    }
    assert_eq!(
        text(&mut rt, cube_t, cube),
        "[[[0, 5], [0, 0]], [[0, 0], [0, 0]]]"
    );
    assert_eq!(text(&mut rt, int_arr(), row), "[0, 0]");
}

#[test]
fn repeat_errors() {
    let mut rt = rt();
    assert_eq!(
        rt.array_repeat(Type::Int, 0, -1, &[]),
        Err(TrapCode::NegativeLength)
    );
    assert_eq!(
        rt.array_repeat(Type::Int, 0, 1_000_000_000_000, &[]),
        Err(TrapCode::OutOfMemory)
    );
    assert_eq!(
        rt.array_repeat(Type::Int, 0, i64::MAX, &[]),
        Err(TrapCode::OutOfMemory)
    );
    let row = rt.array_repeat(Type::Int, 0, 1000, &[]).unwrap();
    assert_eq!(
        rt.array_repeat(int_arr(), row, i64::MAX / 2, &[row]),
        Err(TrapCode::OutOfMemory)
    );
    let empty = rt.array_repeat(int_arr(), row, 0, &[row]).unwrap();
    assert_eq!(text(&mut rt, int_arr().array_of().unwrap(), empty), "[]");
}

#[test]
fn memory_limit_applies() {
    let mut rt = Runtime::new(
        HeapConfig {
            memory_limit: Some(1 << 20),
            min_gc_threshold: 1 << 16,
            stress: false,
        },
        OutputSink::Capture,
        None,
    );
    assert_eq!(
        rt.array_repeat(Type::Int, 0, 200_000, &[]),
        Err(TrapCode::OutOfMemory)
    );
    let a = rt.array_repeat(Type::Int, 0, 100_000, &[]).unwrap();
    // Kept alive by a root: a second one does not fit.
    assert_eq!(
        rt.array_repeat(Type::Int, 0, 100_000, &[a]),
        Err(TrapCode::OutOfMemory)
    );
    // Without the root the first is garbage and is collected to make room.
    rt.array_repeat(Type::Int, 0, 100_000, &[]).unwrap();
}

/// docs/language.md: a program that allocates in a loop runs in bounded memory.
/// This is the host side of `for i in 0..20000 { let a = [0; 100000]; }`.
#[test]
fn allocation_loop_runs_in_bounded_memory() {
    let mut rt = rt();
    rt.add_globals(&[int_arr()]).unwrap();
    let mut live = 0;
    for i in 0..20_000i64 {
        let a = rt
            .array_repeat(Type::Int, i as u64, 100_000, &[live])
            .unwrap();
        live = a;
    }
    let stats = rt.heap().stats();
    let one = array_object_bytes(ElemLayout::Word, 100_000).unwrap();
    assert!(stats.collections > 100, "{stats:?}");
    assert!(stats.peak_bytes <= 16 * one + (16 << 20), "peak {stats:?}");
    assert!(stats.live_bytes <= stats.peak_bytes);
    assert_eq!(stats.total_allocated as usize / one, 20_000);
    // SAFETY: `live` was a root of the last allocation; no GC since.
    assert_eq!(unsafe { array_words(live) }[99_999], 19_999);
}

#[test]
fn push_concat_and_print() {
    let mut rt = rt();
    let str_arr = Type::Str.array_of().unwrap();
    let a = rt.array_new(Type::Str, &[], &[]).unwrap();
    for i in 0..100 {
        let s = rt.to_str(Type::Int, i, &[a]).unwrap();
        let q = rt.intern_str("\"");
        let s = rt.str_concat(s, q, &[a]).unwrap();
        rt.array_push(a, s, &[a]).unwrap();
        rt.collect(&[a]);
    }
    let t = text(&mut rt, str_arr, a);
    assert!(t.starts_with("[\"0\\\"\", \"1\\\"\""), "{t}");
    assert!(t.ends_with("\"99\\\"\"]"), "{t}");
    rt.print(Type::Float, 2.5f64.to_bits());
    rt.print(Type::Bool, 1);
    let s = rt.intern_str("raw\n\"x\"");
    rt.print(Type::Str, s);
    assert_eq!(rt.output().take(), b"2.5\ntrue\nraw\n\"x\"\n");
}

#[test]
fn fuel_runs_out() {
    let mut rt = Runtime::new(HeapConfig::default(), OutputSink::Capture, Some(10));
    assert!(rt.consume_fuel(4).is_ok());
    assert!(rt.consume_fuel(6).is_ok());
    assert_eq!(rt.consume_fuel(1), Err(TrapCode::OutOfFuel));
    rt.set_fuel(None);
    assert!(rt.consume_fuel(u64::MAX).is_ok());
}
