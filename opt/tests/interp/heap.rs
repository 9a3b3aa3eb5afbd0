//! Strings, arrays, globals, printing, the clock, runtime errors with their
//! locations, and GC roots at allocating host calls.

use waddle_opt::abi::{TrapCode, Word};
use waddle_opt::ir::{BinaryOp, Cmp, GlobalData, InstKind, Program, ScalarType, Type};

use crate::build::{func, loc, run};
use waddle_test_support::host::{elems, new_array, new_str, text, TestHost};

const INTS: Type = Type::Array {
    elem: ScalarType::Int,
    depth: 1,
};
const INTS2: Type = Type::Array {
    elem: ScalarType::Int,
    depth: 2,
};
const STRS: Type = Type::Array {
    elem: ScalarType::Str,
    depth: 1,
};

#[test]
fn strings() {
    let mut p = Program::default();
    let f = func(&mut p, "s", &[Type::Str], Type::Str, |b, v| {
        let hello = b.s("héllo");
        let n = b.ins(InstKind::StrLen(hello), Type::Int);
        b.print(n);
        let cat = b.ins(InstKind::StrConcat(hello, v[0]), Type::Str);
        b.print(cat);
        let n = b.ins(InstKind::StrLen(cat), Type::Int);
        let t = b.ins(InstKind::ToStr(n), Type::Str);
        let r = b.ins(InstKind::StrConcat(t, cat), Type::Str);
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    let r = run(&p, &mut h, f, &[new_str(" world")]).unwrap();
    assert_eq!(text(r), "12héllo world");
    assert_eq!(h.lines(), ["6", "héllo world"]);
}

#[test]
fn string_comparisons_are_bytewise() {
    let mut p = Program::default();
    let ccs = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];
    let f = func(&mut p, "c", &[Type::Str, Type::Str], Type::Unit, |b, v| {
        for cc in ccs {
            let r = b.ins(InstKind::StrCmp(cc, v[0], v[1]), Type::Bool);
            b.print(r);
        }
        b.ret(None);
    });
    let pairs = [
        ("a", "b"),
        ("b", "a"),
        ("ab", "ab"),
        ("", "a"),
        ("ab", "a"),
        ("Z", "a"),
        ("é", "z"),
    ];
    for (x, y) in pairs {
        let mut h = TestHost::new(0);
        run(&p, &mut h, f, &[new_str(x), new_str(y)]).unwrap();
        let (x, y) = (x.as_bytes(), y.as_bytes());
        let want = [x == y, x != y, x < y, x <= y, x > y, x >= y].map(|w| w.to_string());
        assert_eq!(h.lines(), want, "{x:?} {y:?}");
    }
}

#[test]
fn print_and_to_str_pass_the_type() {
    let mut p = Program::default();
    let f = func(&mut p, "p", &[], Type::Unit, |b, _| {
        let vals = [b.i(-12), b.f(0.1), b.f(1e100), b.bool(false), b.s("q\"")];
        let s = b.s("x\n");
        let arr = b.ins(InstKind::ArrayLit(vec![s, s]), STRS);
        for v in vals.into_iter().chain([arr]) {
            b.print(v);
            let t = b.ins(InstKind::ToStr(v), Type::Str);
            b.print(t);
        }
        b.ret(None);
    });
    let mut h = TestHost::new(0);
    run(&p, &mut h, f, &[]).unwrap();
    let want = ["-12", "0.1", "1e100", "false", "q\"", r#"["x\n", "x\n"]"#];
    let doubled: Vec<&str> = want.iter().flat_map(|w| [*w, *w]).collect();
    assert_eq!(h.lines(), doubled);
}

#[test]
fn arrays() {
    let mut p = Program::default();
    let f = func(&mut p, "a", &[INTS], INTS, |b, v| {
        // a = [10, 20, 30]; a[1] = a[2] + a[0]; push(a, len(a)); pop(a)
        let (x, y, z) = (b.i(10), b.i(20), b.i(30));
        let a = b.ins(InstKind::ArrayLit(vec![x, y, z]), INTS);
        let (i0, i1, i2) = (b.i(0), b.i(1), b.i(2));
        b.eff(InstKind::BoundsCheck(a, i2));
        let e2 = b.ins(InstKind::ArrayGet(a, i2), Type::Int);
        b.eff(InstKind::BoundsCheck(a, i0));
        let e0 = b.ins(InstKind::ArrayGet(a, i0), Type::Int);
        let s = b.bin(BinaryOp::IAdd, e2, e0);
        b.eff(InstKind::BoundsCheck(a, i1));
        b.eff(InstKind::ArraySet(a, i1, s));
        let n = b.ins(InstKind::ArrayLen(a), Type::Int);
        b.eff(InstKind::ArrayPush(a, n));
        b.eff(InstKind::ArrayPush(a, n));
        let popped = b.ins(InstKind::ArrayPop(a), Type::Int);
        b.print(popped);
        b.print(a);
        // Unchecked access on the parameter (checked defensively anyway).
        let first = b.ins(InstKind::ArrayGet(v[0], i0), Type::Int);
        b.print(first);
        b.ret(Some(a));
    });
    let mut h = TestHost::new(0);
    let r = run(&p, &mut h, f, &[new_array(Type::Int, &[5])]).unwrap();
    assert_eq!(elems(r), [10, 40, 30, 3]);
    assert_eq!(h.lines(), ["3", "[10, 40, 30, 3]", "5"]);
}

#[test]
fn push_grows_many_times() {
    let mut p = Program::default();
    let f = func(&mut p, "grow", &[INTS, Type::Int], Type::Int, |b, v| {
        let (head, hp) = b.block(&[Type::Int]);
        let (body, _) = b.block(&[]);
        let (exit, _) = b.block(&[]);
        let z = b.i(0);
        b.jump(head, vec![z]);
        b.at(head);
        let c = b.bin(BinaryOp::ICmp(Cmp::Lt), hp[0], v[1]);
        b.br(c, body, vec![], exit, vec![]);
        b.at(body);
        b.eff(InstKind::ArrayPush(v[0], hp[0]));
        let one = b.i(1);
        let i = b.bin(BinaryOp::IAdd, hp[0], one);
        b.jump(head, vec![i]);
        b.at(exit);
        let n = b.ins(InstKind::ArrayLen(v[0]), Type::Int);
        b.ret(Some(n));
    });
    let mut h = TestHost::new(0);
    let a = new_array(Type::Int, &[]);
    assert_eq!(run(&p, &mut h, f, &[a, 1000]), Ok(1000));
    assert_eq!(elems(a), (0..1000).collect::<Vec<Word>>());
}

#[test]
fn repeat_literals() {
    let mut p = Program::default();
    let f = func(&mut p, "r", &[Type::Int], INTS2, |b, v| {
        let seven = b.i(7);
        let row = b.ins_at(InstKind::ArrayRepeat(seven, v[0]), INTS, loc(2, 5));
        let two = b.i(2);
        let grid = b.ins_at(InstKind::ArrayRepeat(row, two), INTS2, loc(2, 9));
        b.ret(Some(grid));
    });
    let mut h = TestHost::new(0);
    let g = run(&p, &mut h, f, &[3]).unwrap();
    let rows = elems(g);
    assert_eq!(rows.len(), 2);
    assert_ne!(rows[0], rows[1], "rows must be fresh copies");
    assert_eq!(elems(rows[0]), [7, 7, 7]);
    let g0 = elems(run(&p, &mut h, f, &[0]).unwrap());
    assert_eq!(g0.len(), 2);
    assert!(elems(g0[0]).is_empty() && elems(g0[1]).is_empty());
    let e = run(&p, &mut h, f, &[-1i64 as Word]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::NegativeLength, loc(2, 5)));
    h.max_alloc = 10;
    let e = run(&p, &mut h, f, &[11]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::OutOfMemory, loc(2, 5)));
}

fn index_program(set: bool) -> (Program, waddle_opt::ir::FuncId) {
    let mut p = Program::default();
    let f = func(&mut p, "ix", &[INTS, Type::Int], Type::Int, |b, v| {
        b.eff_at(InstKind::BoundsCheck(v[0], v[1]), loc(9, 3));
        if set {
            let k = b.i(5);
            b.eff(InstKind::ArraySet(v[0], v[1], k));
        }
        let r = b.ins(InstKind::ArrayGet(v[0], v[1]), Type::Int);
        b.ret(Some(r));
    });
    (p, f)
}

#[test]
fn index_out_of_bounds() {
    for set in [false, true] {
        let (p, f) = index_program(set);
        let mut h = TestHost::new(0);
        let a = new_array(Type::Int, &[1, 2, 3]);
        assert_eq!(run(&p, &mut h, f, &[a, 2]), Ok(if set { 5 } else { 3 }));
        for bad in [3i64, -1, i64::MIN, i64::MAX] {
            let e = run(&p, &mut h, f, &[a, bad as Word]).unwrap_err();
            assert_eq!(
                (e.code, e.loc),
                (TrapCode::IndexOutOfBounds, loc(9, 3)),
                "{bad}"
            );
        }
    }
    // A lone (unchecked) access still refuses to read out of bounds.
    let mut p = Program::default();
    let f = func(&mut p, "lone", &[INTS, Type::Int], Type::Int, |b, v| {
        let r = b.ins_at(InstKind::ArrayGet(v[0], v[1]), Type::Int, loc(4, 4));
        b.ret(Some(r));
    });
    let mut h = TestHost::new(0);
    let e = run(&p, &mut h, f, &[new_array(Type::Int, &[]), 0]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::IndexOutOfBounds, loc(4, 4)));
}

#[test]
fn pop_empty_and_assert() {
    let mut p = Program::default();
    let f = func(&mut p, "pop", &[INTS], Type::Int, |b, v| {
        let r = b.ins_at(InstKind::ArrayPop(v[0]), Type::Int, loc(6, 1));
        b.ret(Some(r));
    });
    let g = func(&mut p, "assert", &[Type::Bool], Type::Unit, |b, v| {
        b.eff_at(InstKind::Assert(v[0]), loc(8, 2));
        b.ret(None);
    });
    let mut h = TestHost::new(0);
    let a = new_array(Type::Int, &[4]);
    assert_eq!(run(&p, &mut h, f, &[a]), Ok(4));
    let e = run(&p, &mut h, f, &[a]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::PopEmpty, loc(6, 1)));
    assert_eq!(run(&p, &mut h, g, &[1]), Ok(0));
    let e = run(&p, &mut h, g, &[0]).unwrap_err();
    assert_eq!((e.code, e.loc), (TrapCode::AssertionFailed, loc(8, 2)));
}

#[test]
fn globals_and_clock() {
    let mut p = Program::default();
    for (name, ty) in [("n", Type::Int), ("s", Type::Str)] {
        p.globals.push(GlobalData {
            name: name.into(),
            ty,
        });
    }
    let (gn, gs) = (
        p.global_by_name("n").unwrap(),
        p.global_by_name("s").unwrap(),
    );
    let f = func(&mut p, "g", &[], Type::Float, |b, _| {
        let n = b.ins(InstKind::GlobalGet(gn), Type::Int);
        let one = b.i(1);
        let n1 = b.bin(BinaryOp::IAdd, n, one);
        b.eff(InstKind::GlobalSet(gn, n1));
        let s = b.s("set");
        b.eff(InstKind::GlobalSet(gs, s));
        let c1 = b.ins(InstKind::Clock, Type::Float);
        let c2 = b.ins(InstKind::Clock, Type::Float);
        let d = b.bin(BinaryOp::FSub, c2, c1);
        b.ret(Some(d));
    });
    let mut h = TestHost::new(2);
    h.globals[0] = 41;
    assert_eq!(run(&p, &mut h, f, &[]), Ok(0.5f64.to_bits()));
    assert_eq!(h.globals[0], 42);
    assert_eq!(text(h.globals[1]), "set");
}

#[test]
fn gc_roots_cover_live_references() {
    // A caller holds an array while the callee allocates; the callee holds
    // an operand string in a temporary across several allocations.
    let mut p = Program::default();
    let callee = func(&mut p, "callee", &[Type::Str], Type::Str, |b, v| {
        let t = b.ins(InstKind::StrConcat(v[0], v[0]), Type::Str);
        let u = b.ins(InstKind::StrConcat(t, v[0]), Type::Str);
        let n = b.ins(InstKind::StrLen(u), Type::Int);
        let w = b.ins(InstKind::ToStr(n), Type::Str);
        let x = b.ins(InstKind::StrConcat(t, w), Type::Str);
        b.ret(Some(x));
    });
    let main = func(&mut p, "main", &[Type::Str], Type::Unit, |b, v| {
        let one = b.i(1);
        let arr = b.ins(InstKind::ArrayLit(vec![one, one]), INTS);
        let r = b.call(callee, vec![v[0]], Type::Str).unwrap();
        let rs = b.ins(InstKind::ArrayLit(vec![r]), STRS);
        b.eff(InstKind::ArrayPush(arr, one));
        let rep = b.ins(
            InstKind::ArrayRepeat(rs, one),
            Type::Array {
                elem: ScalarType::Str,
                depth: 2,
            },
        );
        b.print(arr);
        b.print(rep);
        b.ret(None);
    });
    let mut h = TestHost::new(0);
    h.log_allocs = true;
    let arg = new_str("ab");
    run(&p, &mut h, main, &[arg]).unwrap();
    assert_eq!(h.lines(), ["[1, 1, 1]", r#"[["abab6"]]"#]);
    // Every operand of every allocating call is among its roots; the
    // argument is while `main` still reads it (up to and during the call:
    // allocations 0-4) and is not after (a dead reference is no root,
    // `opt::analysis::gc_slots`); once the caller's array exists (first
    // allocation) it stays rooted, also while the callee runs.
    let arr = h
        .alloc_log
        .iter()
        .find(|(w, _, _)| *w == "array_push")
        .unwrap()
        .1[0];
    for (k, (what, operands, roots)) in h.alloc_log.iter().enumerate() {
        for w in operands {
            assert!(roots.contains(w), "{what}: operand {w:#x} not rooted");
        }
        assert_eq!(
            roots.contains(&arg),
            k <= 4,
            "{what} (allocation {k}): argument rooted only while live"
        );
        assert!(
            k == 0 || roots.contains(&arr),
            "{what}: caller's array not rooted"
        );
    }
    assert_eq!(h.alloc_log.len(), 8);
}

#[test]
fn stale_references_of_a_leaf_frame_are_no_roots() {
    // `leaf` has no safepoint, so its frame is not zeroed on entry; it
    // copies a heap string into several slots and returns. `alloc`, called
    // next from the same frame depth, reuses those slots: its frame is
    // zeroed on entry (it allocates), so none of its allocations sees the
    // string the leaf left behind, which is dead by then.
    let mut p = Program::default();
    let leaf = func(&mut p, "leaf", &[STRS], Type::Int, |b, v| {
        let zero = b.i(0);
        let mut n = zero;
        for _ in 0..6 {
            b.eff(InstKind::BoundsCheck(v[0], zero));
            let x = b.ins(InstKind::ArrayGet(v[0], zero), Type::Str);
            let l = b.ins(InstKind::StrLen(x), Type::Int);
            n = b.ins(InstKind::Binary(BinaryOp::IAdd, n, l), Type::Int);
        }
        b.ret(Some(n));
    });
    let alloc = func(&mut p, "alloc", &[Type::Int], Type::Str, |b, v| {
        let t = b.ins(InstKind::ToStr(v[0]), Type::Str);
        let u = b.ins(InstKind::StrConcat(t, t), Type::Str);
        let w = b.ins(InstKind::StrConcat(u, t), Type::Str);
        let x = b.ins(InstKind::StrConcat(w, u), Type::Str);
        b.ret(Some(x));
    });
    let main = func(&mut p, "main", &[Type::Str], Type::Unit, |b, v| {
        let s = b.ins(InstKind::StrConcat(v[0], v[0]), Type::Str);
        let arr = b.ins(InstKind::ArrayLit(vec![s]), STRS);
        let n = b.call(leaf, vec![arr], Type::Int).unwrap();
        let r = b.call(alloc, vec![n], Type::Str).unwrap();
        b.print(r);
        b.ret(None);
    });
    let mut h = TestHost::new(0);
    h.log_allocs = true;
    run(&p, &mut h, main, &[new_str("ab")]).unwrap();
    assert_eq!(h.lines(), ["2424242424"]);
    // Allocation 0 is the string `s`, 1 the array; 2.. are `alloc`'s.
    let s = h.alloc_log[1].1[0];
    assert_eq!(h.alloc_log.len(), 6);
    for (what, _, roots) in &h.alloc_log[2..] {
        assert!(!roots.contains(&s), "{what}: a dead string is a root");
    }
}
