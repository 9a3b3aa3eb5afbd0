//! Code memory and entry slots: swapping a function's code through its
//! slot, compile statistics, disassembly, and freeing code memory when a
//! compiled program is dropped.

use waddle_jit::{cranelift::compile, JitOptions};
use waddle_test_support::tiers::{on_big_stack, parse};
use waddle_test_support::TestHost;

const TWO: &str = r#"
fn fn0 "one"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    return v2
}
fn fn1 "two"(int) -> int {
block0(v0: int):
    v1: int = iconst 2
    v2: int = imul v0, v1
    return v2
}
fn fn2 "main"(int) -> int {
block0(v0: int):
    v1: int = call fn0 "one"(v0) @1:1
    print v1
    return v1
}
"#;

#[test]
fn swapping_an_entry_slot_redirects_calls() {
    let p = parse(TWO);
    let (before, after, out) = on_big_stack(move || {
        let mut host = TestHost::new(0);
        let mut cp = compile(&p, &JitOptions::default()).unwrap();
        let (one, two, main) = (
            p.func_by_name("one").unwrap(),
            p.func_by_name("two").unwrap(),
            p.func_by_name("main").unwrap(),
        );
        let before = cp.call(&mut host, main, &[20]);
        let code = cp.code(two).unwrap().as_ptr();
        // SAFETY: `two` has `one`'s signature and lives as long as `cp`.
        unsafe { cp.set_entry(one, code) };
        let after = (
            cp.call(&mut host, main, &[20]),
            cp.call(&mut host, one, &[5]),
        );
        (before, after, host.out.clone())
    });
    assert_eq!(before, Ok(21));
    assert_eq!(after, (Ok(40), Ok(10)));
    assert_eq!(out, "21\n40\n");
}

#[test]
fn stats_and_disassembly() {
    let p = parse(TWO);
    let opts = JitOptions {
        disasm: true,
        ..JitOptions::default()
    };
    let cp = compile(&p, &opts).unwrap();
    let names: Vec<&str> = cp.stats().funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["one", "two", "main"]);
    assert!(cp
        .stats()
        .funcs
        .iter()
        .all(|f| f.code_size > 0 && f.ir_insts >= 3));
    let main = p.func_by_name("main").unwrap();
    assert!(cp.disasm(main).is_some_and(|d| !d.is_empty()));
    assert_eq!(
        cp.code(main).map(<[u8]>::len),
        Some(cp.stats().funcs[2].code_size)
    );
}

/// Resident set size in bytes (Linux), `None` elsewhere.
fn rss() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Compiling and dropping the same program many times (as a REPL that
/// redefines a function does) frees its code memory every time.
#[test]
fn dropped_programs_free_their_code() {
    let p = parse(TWO);
    let main = p.func_by_name("main").unwrap();
    let opts = JitOptions {
        verify_cranelift: false,
        ..JitOptions::default()
    };
    let round = |n: usize| {
        for _ in 0..n {
            let mut host = TestHost::new(0);
            let mut cp = compile(&p, &opts).unwrap();
            assert_eq!(cp.call(&mut host, main, &[1]), Ok(2));
        }
    };
    round(300);
    let Some(start) = rss() else { return };
    round(3000);
    let grown = rss().unwrap_or(start).saturating_sub(start);
    // Each unit maps at least two pages of code; 3000 leaked units would be
    // over 20 MB.
    assert!(grown < 8 << 20, "RSS grew by {grown} bytes");
}

/// The permissions of the mapping holding `addr` (Linux `/proc/self/maps`).
fn mapping_perms(addr: usize) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut parts = line.split_whitespace();
        let range = parts.next()?;
        let perms = parts.next()?;
        let (lo, hi) = range.split_once('-')?;
        let (lo, hi) = (
            usize::from_str_radix(lo, 16).ok()?,
            usize::from_str_radix(hi, 16).ok()?,
        );
        (lo <= addr && addr < hi).then(|| perms.to_string())
    })
}

/// Code memory is W^X: every function's code sits in a readable,
/// executable, non-writable mapping once the program is compiled.
#[test]
fn code_pages_are_executable_and_not_writable() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let p = parse(TWO);
    let cp = compile(&p, &JitOptions::default()).unwrap();
    for name in ["one", "two", "main"] {
        let code = cp.code(p.func_by_name(name).unwrap()).unwrap();
        let perms = mapping_perms(code.as_ptr() as usize).expect("code is mapped");
        assert!(perms.starts_with("r-x"), "{name}: {perms}");
    }
}

/// Disassembling a compiled function with the shared disassembler decodes
/// every byte into instructions ending in a return.
#[test]
fn compiled_code_disassembles() {
    let Some(arch) = waddle_jit::disasm::Arch::host() else {
        return;
    };
    let p = parse(TWO);
    let cp = compile(&p, &JitOptions::default()).unwrap();
    let code = cp.code(p.func_by_name("two").unwrap()).unwrap();
    let lines = waddle_jit::disasm::decode(code, code.as_ptr() as u64, arch);
    assert_eq!(
        lines.iter().map(|l| l.bytes.len()).sum::<usize>(),
        code.len()
    );
    assert!(lines.iter().all(|l| l.text != "(bad)"), "{lines:?}");
    assert!(lines.iter().any(|l| l.text.starts_with("ret")), "{lines:?}");
}

/// The unit's code-byte count covers its functions and trampolines.
#[test]
fn code_bytes_cover_functions_and_trampolines() {
    let p = parse(TWO);
    let cp = compile(&p, &JitOptions::default()).unwrap();
    let funcs: usize = cp.stats().funcs.iter().map(|f| f.code_size).sum();
    assert!(cp.code_bytes() > funcs, "{} vs {funcs}", cp.code_bytes());
    assert!(waddle_jit::code_memory().units >= 1);
}

/// `TWO` and two loops: a loop nest, and a function that ends in a loop.
const LOOPS: &str = r#"
fn fn0 "one"(int) -> int {
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    return v2
}
fn fn1 "nest"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2, block5
block2:
    jump block3(v1, v3)
block3(v5: int, v6: int):
    v7: bool = icmp lt v5, v2
    br v7, block4, block6
block4:
    v8: int = imul v5, v2
    v9: int = iadd v6, v8
    v10: int = iconst 1
    v11: int = iadd v5, v10
    jump block3(v11, v9)
block6:
    v12: int = iconst 1
    v13: int = iadd v2, v12
    jump block1(v13, v6)
block5:
    return v3
}
fn fn2 "sum"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2, block3
block2:
    v5: int = iadd v3, v2
    v6: int = iconst 1
    v7: int = iadd v2, v6
    jump block1(v7, v5)
block3:
    return v3
}
fn fn3 "main"(int) -> int {
block0(v0: int):
    v1: int = call fn0 "one"(v0) @1:1
    v2: int = call fn1 "nest"(v1) @1:2
    v3: int = call fn2 "sum"(v2) @1:3
    print v3
    return v3
}
"#;

/// Every function's innermost loop header (or entry, without a loop)
/// starts a `CODE_ALIGN`-byte block, whatever the sizes of the functions
/// placed before it in the unit: the same loop runs at the same speed in
/// every unit (eager, tier-up, OSR entry).
#[test]
fn hot_loop_headers_and_entries_start_a_code_block() {
    let (placed, result) = compile_placed(LOOPS, 4);
    // nest(5) = sum of j·i for 0 <= j < i < 5 = 35; sum(35) = 595.
    assert_eq!(result, Ok(595));
    assert_eq!(placed.len(), 4);
    for (name, hot, _, _) in &placed {
        let has_loop = name == "nest" || name == "sum";
        assert_eq!(*hot > 0, has_loop, "{name}: hot offset {hot}");
    }
}

/// A function larger than what is left of the JIT's current memory
/// region still has its hot loop header at a block start: its filler and
/// its code are allocated together (`place::PlacedMemory`), rather than
/// the filler at the end of the old region and the code at the start of a
/// fresh page.
#[test]
fn a_function_larger_than_a_page_is_placed_too() {
    let prints = "    print v0\n".repeat(600);
    let src = format!(
        r#"
fn fn0 "one"(int) -> int {{
block0(v0: int):
    v1: int = iconst 1
    v2: int = iadd v0, v1
    return v2
}}
fn fn1 "big"(int) -> int {{
block0(v0: int):
{prints}    v1: int = iconst 0
    jump block1(v1, v1)
block1(v2: int, v3: int):
    v4: bool = icmp lt v2, v0
    br v4, block2, block3
block2:
    v5: int = iadd v3, v2
    v6: int = iconst 1
    v7: int = iadd v2, v6
    jump block1(v7, v5)
block3:
    return v3
}}
fn fn2 "main"(int) -> int {{
block0(v0: int):
    v1: int = call fn0 "one"(v0) @1:1
    v2: int = call fn1 "big"(v1) @1:2
    return v2
}}
"#
    );
    let (placed, result) = compile_placed(&src, 4);
    assert_eq!(result, Ok(10));
    let (_, hot, _, size) = (placed.iter().find(|p| p.0 == "big")).unwrap();
    assert!(
        *hot > 4096 && *size > 4096,
        "hot offset {hot}, {size} bytes"
    );
}

/// A compiled function's name, hot offset, code address and code size.
type Placed = (String, usize, usize, usize);

/// Compiles the IR program `src` with T2, calls its `main` with `arg`, and
/// returns every function's [`Placed`] (each checked to have its hot
/// offset at a block start) and the result.
fn compile_placed(
    src: &str,
    arg: waddle_opt::abi::Word,
) -> (
    Vec<Placed>,
    Result<waddle_opt::abi::Word, waddle_opt::abi::Trap>,
) {
    use waddle_jit::cranelift::CODE_ALIGN;
    let p = parse(src);
    let (placed, result) = on_big_stack(move || {
        let mut host = TestHost::new(0);
        let mut cp = compile(&p, &JitOptions::default()).unwrap();
        let placed: Vec<Placed> = (cp.stats().funcs.iter())
            .map(|s| {
                let code = cp.code(s.func).unwrap().as_ptr() as usize;
                (s.name.clone(), s.hot_offset, code, s.code_size)
            })
            .collect();
        let main = p.func_by_name("main").unwrap();
        (placed, cp.call(&mut host, main, &[arg]))
    });
    for (name, hot, code, _) in &placed {
        assert_eq!(
            (code + hot) % CODE_ALIGN as usize,
            0,
            "{name}: code at {code:#x}, hot offset {hot}"
        );
    }
    (placed, result)
}
