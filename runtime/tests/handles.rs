//! Handles to heap values ([`ArrayRef`], [`StrRef`]) on every tier: no
//! copies across the boundary, rooting across collections (including the
//! collector's stress mode), wrong-store and dropped-store use.

use waddle::{ArrayRef, Config, Engine, Error, Module, OutputSink, Store, StrRef, Tier};

const PROGRAM: &str = r#"
fn double(a: [int]) -> [int] { for i in 0..len(a) { a[i] = a[i] * 2; } return a; }
fn same(a: [int]) -> [int] { return a; }
fn sum(a: [int]) -> int { var s = 0; for i in 0..len(a) { s += a[i]; } return s; }
fn fsum(a: [float]) -> float { var s = 0.0; for i in 0..len(a) { s += a[i]; } return s; }
fn flags(n: int) -> [bool] { var out: [bool] = []; for i in 0..n { push(out, i % 2 == 0); } return out; }
fn churn(n: int) -> int { var k = 0; for i in 0..n { var t = [i; 64]; k += len(t); } return k; }
fn fresh(n: int) -> [int] { return [7; n]; }
fn grow(a: [int], n: int) { for i in 0..n { push(a, i); } }
fn cat(a: str, b: str) -> str { return a + b; }
fn echo(s: str) -> str { return s; }
fn both(a: [int], s: str) -> int { return len(a) + len(s); }
fn bflip(a: [bool]) { for i in 0..len(a) { a[i] = !a[i]; } }
fn bcount(a: [bool]) -> int { var k = 0; for i in 0..len(a) { if a[i] { k += 1; } } return k; }
fn bgrid(n: int) -> [[bool]] { let g = [[false; 3]; n]; for i in 0..n { g[i][i % 3] = true; } return g; }
"#;

fn engines(stress: bool) -> Vec<(Tier, Engine)> {
    Tier::available()
        .into_iter()
        .map(|tier| {
            let mut config = Config::new().tier(tier);
            config.gc_stress = stress;
            (tier, Engine::new(&config).unwrap())
        })
        .collect()
}

fn instance(engine: &Engine) -> (Store, waddle::Instance) {
    let module = Module::new(engine, "handles.wdl", PROGRAM).unwrap();
    let mut store = Store::with_output(engine, OutputSink::Capture);
    let inst = store.instantiate(&module).unwrap();
    (store, inst)
}

#[test]
fn a_million_element_array_goes_to_a_script_and_back_without_copying() {
    for (tier, engine) in engines(false) {
        let (mut store, inst) = instance(&engine);
        let double = inst
            .typed_func::<(&ArrayRef<i64>,), ArrayRef<i64>>(&store, "double")
            .unwrap();
        let n = 1_000_000;
        let data = store.array_filled(n, 0i64).unwrap();
        for (i, x) in data
            .as_mut_slice(&mut store)
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            *x = i as i64;
        }
        let before = store.heap_stats().total_allocated;
        let out = double.call(&mut store, (&data,)).unwrap();
        assert_eq!(
            store.heap_stats().total_allocated,
            before,
            "{tier}: the call allocated"
        );
        assert!(out.same(&data), "{tier}");
        let s = out.as_slice(&store).unwrap();
        assert_eq!(s.len(), n, "{tier}");
        assert_eq!((s[0], s[1], s[n - 1]), (0, 2, 2 * (n as i64 - 1)), "{tier}");
        // Rust writes are seen by the script.
        data.set(&mut store, 0, 5).unwrap();
        let sum = inst
            .typed_func::<(&ArrayRef<i64>,), i64>(&store, "sum")
            .unwrap();
        let expect: i64 = (1..n as i64).map(|i| 2 * i).sum::<i64>() + 5;
        assert_eq!(sum.call(&mut store, (&data,)).unwrap(), expect, "{tier}");
    }
}

#[test]
fn typed_element_access_on_every_tier() {
    for (tier, engine) in engines(false) {
        let (mut store, inst) = instance(&engine);
        let fsum = inst
            .typed_func::<(ArrayRef<f64>,), f64>(&store, "fsum")
            .unwrap();
        let xs = store.array_from_slice(&[0.5, 1.5, 2.0]).unwrap();
        assert_eq!(fsum.call(&mut store, (xs.clone(),)).unwrap(), 4.0, "{tier}");
        xs.push(&mut store, 6.0).unwrap();
        assert_eq!(xs.len(&store).unwrap(), 4);
        assert_eq!(
            fsum.call(&mut store, (xs.clone(),)).unwrap(),
            10.0,
            "{tier}"
        );
        assert_eq!(xs.to_vec(&store).unwrap(), [0.5, 1.5, 2.0, 6.0]);
        assert_eq!(xs.get(&store, 9).unwrap(), None);
        let e = xs.set(&mut store, 9, 1.0).unwrap_err();
        assert_eq!(e.trap_code(), Some(waddle::TrapCode::IndexOutOfBounds));

        let flags = inst
            .typed_func::<(i64,), ArrayRef<bool>>(&store, "flags")
            .unwrap();
        let f = flags.call(&mut store, (3,)).unwrap();
        assert_eq!(f.to_vec(&store).unwrap(), [true, false, true], "{tier}");
        f.set(&mut store, 1, true).unwrap();
        assert_eq!(f.get(&store, 1).unwrap(), Some(true));

        // The script grows an array the embedder holds.
        let grow = inst
            .typed_func::<(&ArrayRef<i64>, i64), ()>(&store, "grow")
            .unwrap();
        let a = store.array_from_slice::<i64>(&[]).unwrap();
        grow.call(&mut store, (&a, 100)).unwrap();
        assert_eq!(a.len(&store).unwrap(), 100, "{tier}");
        assert_eq!(a.as_slice(&store).unwrap()[99], 99, "{tier}");

        // Signatures are checked: `[float]` is not `[int]`.
        assert!(matches!(
            inst.typed_func::<(&ArrayRef<f64>,), ArrayRef<i64>>(&store, "double"),
            Err(Error::Signature(_))
        ));
    }
}

#[test]
fn bool_arrays_take_a_byte_per_element_and_cross_the_boundary_on_every_tier() {
    for stress in [false, true] {
        for (tier, engine) in engines(stress) {
            let (mut store, inst) = instance(&engine);
            let bflip = inst
                .typed_func::<(&ArrayRef<bool>,), ()>(&store, "bflip")
                .unwrap();
            let bcount = inst
                .typed_func::<(&ArrayRef<bool>,), i64>(&store, "bcount")
                .unwrap();
            // One byte per element: 8 000 bools cost less than 8 000
            // words would (the header and bookkeeping are a few dozen bytes).
            let before = store.heap_stats().total_allocated;
            let n = 8_000;
            let a = store.array_filled(n, false).unwrap();
            let cost = store.heap_stats().total_allocated - before;
            assert!(cost >= n as u64 && cost < 2 * n as u64, "{tier}: {cost}");
            a.set(&mut store, 0, true).unwrap();
            a.set(&mut store, n - 1, true).unwrap();
            assert_eq!(bcount.call(&mut store, (&a,)).unwrap(), 2, "{tier}");
            bflip.call(&mut store, (&a,)).unwrap();
            assert_eq!(a.get(&store, 0).unwrap(), Some(false), "{tier}");
            assert_eq!(a.get(&store, 1).unwrap(), Some(true), "{tier}");
            assert_eq!(a.get(&store, n - 1).unwrap(), Some(false), "{tier}");
            assert_eq!(a.get(&store, n).unwrap(), None, "{tier}");
            assert_eq!(bcount.call(&mut store, (&a,)).unwrap(), n as i64 - 2);
            let e = a.set(&mut store, n, true).unwrap_err();
            assert_eq!(e.trap_code(), Some(waddle::TrapCode::IndexOutOfBounds));

            // Lengths around the word size, grown from Rust by push.
            for len in [0usize, 1, 7, 8, 9, 17] {
                let pattern: Vec<bool> = (0..len).map(|i| i % 3 != 1).collect();
                let b = store.array_from_slice(&pattern).unwrap();
                b.push(&mut store, true).unwrap();
                b.push(&mut store, false).unwrap();
                bflip.call(&mut store, (&b,)).unwrap();
                let mut want: Vec<bool> = pattern.iter().map(|x| !x).collect();
                want.extend([false, true]);
                assert_eq!(b.to_vec(&store).unwrap(), want, "{tier} len {len}");
            }

            // Nested bool arrays made by the script come back whole.
            let bgrid = inst
                .typed_func::<(i64,), waddle::Val>(&store, "bgrid")
                .unwrap();
            let g = bgrid.call(&mut store, (4,)).unwrap();
            assert_eq!(
                format!("{g:?}"),
                format!(
                    "{:?}",
                    waddle::Val::Array(
                        (0..4)
                            .map(|i| waddle::Val::Array(
                                (0..3).map(|j| waddle::Val::Bool(j == i % 3)).collect()
                            ))
                            .collect()
                    )
                ),
                "{tier}"
            );
        }
    }
}

#[test]
fn strings_pass_by_handle_on_every_tier() {
    for (tier, engine) in engines(false) {
        let (mut store, inst) = instance(&engine);
        let cat = inst
            .typed_func::<(&StrRef, StrRef), StrRef>(&store, "cat")
            .unwrap();
        let a = store.new_str("héllo, ").unwrap();
        let b = store.new_str("world").unwrap();
        let c = cat.call(&mut store, (&a, b)).unwrap();
        assert_eq!(c.to_str(&store).unwrap(), "héllo, world", "{tier}");
        assert_eq!(a.as_bytes(&store).unwrap(), "héllo, ".as_bytes());
        let echo = inst
            .typed_func::<(&StrRef,), StrRef>(&store, "echo")
            .unwrap();
        assert!(echo.call(&mut store, (&c,)).unwrap().same(&c), "{tier}");
    }
}

#[test]
fn handles_keep_their_objects_alive_across_collections() {
    for stress in [false, true] {
        for (tier, engine) in engines(stress) {
            let (mut store, inst) = instance(&engine);
            let fresh = inst
                .typed_func::<(i64,), ArrayRef<i64>>(&store, "fresh")
                .unwrap();
            let churn = inst.typed_func::<(i64,), i64>(&store, "churn").unwrap();
            let kept = fresh.call(&mut store, (1000,)).unwrap();
            let s = store.new_str("kept").unwrap();
            let dropped = fresh.call(&mut store, (1000,)).unwrap();
            let objects = store.heap_stats().objects;
            drop(dropped);
            assert_eq!(store.live_handles(), 2, "{tier}");
            // Garbage in the script, and explicit collections, between uses.
            assert_eq!(churn.call(&mut store, (2000,)).unwrap(), 128_000, "{tier}");
            store.collect_garbage();
            assert!(
                store.heap_stats().objects < objects,
                "{tier}: nothing was freed"
            );
            assert_eq!(kept.len(&store).unwrap(), 1000, "{tier}");
            assert!(kept.as_slice(&store).unwrap().iter().all(|&x| x == 7));
            assert_eq!(s.to_str(&store).unwrap(), "kept");
            // A handle moved to another thread and dropped there unroots.
            let clone = kept.clone();
            std::thread::spawn(move || drop(clone)).join().unwrap();
            assert_eq!(store.live_handles(), 2, "{tier}");
            // Exactly the two held objects go once their handles do.
            store.collect_garbage();
            let held = store.heap_stats().objects;
            drop(kept);
            drop(s);
            assert_eq!(store.live_handles(), 0, "{tier}");
            store.collect_garbage();
            assert_eq!(store.heap_stats().objects, held - 2, "{tier}");
        }
    }
}

#[test]
fn handles_only_work_with_their_own_store() {
    let engine = Engine::default();
    let (mut store, inst) = instance(&engine);
    let (mut other, _) = instance(&engine);
    let a = store.array_from_slice(&[1i64, 2]).unwrap();
    let s = store.new_str("x").unwrap();
    assert!(matches!(a.len(&other), Err(Error::Instance(_))));
    assert!(matches!(
        a.as_mut_slice(&mut other),
        Err(Error::Instance(_))
    ));
    assert!(matches!(s.to_str(&other), Err(Error::Instance(_))));
    // Passing a handle of another store to a call is refused before running.
    let sum = inst
        .typed_func::<(&ArrayRef<i64>,), i64>(&store, "sum")
        .unwrap();
    let foreign = other.array_from_slice(&[1i64]).unwrap();
    assert!(matches!(
        sum.call(&mut store, (&foreign,)),
        Err(Error::Instance(_))
    ));
    assert_eq!(sum.call(&mut store, (&a,)).unwrap(), 3);
    // After its store is gone a handle can be dropped, or used with
    // another store only to get an error.
    drop(store);
    assert!(matches!(a.get(&other, 0), Err(Error::Instance(_))));
    drop(a);
    drop(s);
}

#[test]
fn copying_conversions_stay_a_convenience() {
    let engine = Engine::default();
    let (mut store, inst) = instance(&engine);
    let double = inst
        .typed_func::<(Vec<i64>,), Vec<i64>>(&store, "double")
        .unwrap();
    assert_eq!(
        double.call(&mut store, (vec![1, 2, 3],)).unwrap(),
        [2, 4, 6]
    );
}

#[test]
fn a_handle_passed_by_value_survives_the_allocations_of_later_arguments() {
    // Under GC stress every allocation collects: the `&str` argument is
    // allocated after the array's handle was consumed, so the array must
    // stay rooted through the argument list.
    for (tier, engine) in engines(true) {
        let (mut store, inst) = instance(&engine);
        let both = inst
            .typed_func::<(ArrayRef<i64>, &str), i64>(&store, "both")
            .unwrap();
        for round in 0..20 {
            let a = store.array_filled(100 + round, 3i64).unwrap();
            let r = both.call(&mut store, (a, "four")).unwrap();
            assert_eq!(r, 104 + round as i64, "{tier}");
        }
    }
}

#[test]
fn handles_dropped_on_other_threads_while_the_store_collects() {
    let engine = Engine::default();
    let (mut store, _inst) = instance(&engine);
    let handles: Vec<_> = (0..2000)
        .map(|i| store.array_from_slice(&[i as i64]).unwrap())
        .collect();
    let keep: Vec<_> = handles.iter().step_by(2).cloned().collect();
    let dropper = std::thread::spawn(move || drop(handles));
    for _ in 0..50 {
        store.collect_garbage();
    }
    dropper.join().unwrap();
    store.collect_garbage();
    assert_eq!(store.live_handles(), 1000);
    for (i, h) in keep.iter().enumerate() {
        assert_eq!(h.get(&store, 0).unwrap(), Some(2 * i as i64));
    }
}
