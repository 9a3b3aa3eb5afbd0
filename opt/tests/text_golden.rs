//! Text format: golden output, parse errors with locations, and robustness
//! of the parser on arbitrary and mutated input.

mod common;

use proptest::prelude::*;
use waddle_opt::ir::{
    parse_function, parse_program, print_function, print_program, BinaryOp, BlockCall, Cmp, FuncId,
    Function, FunctionBuilder, GlobalData, InstKind, Program, Signature, SrcLoc, Terminator, Type,
};

fn loc(line: u32, col: u32) -> SrcLoc {
    SrcLoc { file: 0, line, col }
}

/// The brief's `fib` example, built with the builder.
fn fib_program() -> Program {
    let mut p = Program::default();
    p.files.push("fib.wdl".into());
    let calls = p.globals.push(GlobalData {
        name: "calls".into(),
        ty: Type::Int,
    });
    let fib = p.funcs.next_key();
    let mut f = Function::new(
        "fib",
        Signature {
            params: vec![Type::Int],
            ret: Type::Int,
        },
    );
    let mut b = FunctionBuilder::new(&mut f);
    b.set_loc(loc(1, 1));
    let b0 = b.create_block();
    let n = b.append_block_param(b0, Type::Int);
    let b1 = b.create_block();
    let b2 = b.create_block();
    let two = b.ins(b0, InstKind::IConst(2), Type::Int, SrcLoc::NONE);
    let lt = b.ins(
        b0,
        InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), n, two),
        Type::Bool,
        loc(2, 8),
    );
    b.set_terminator(
        b0,
        Terminator::branch(lt, BlockCall::new(b1, vec![]), BlockCall::new(b2, vec![])),
    );
    b.set_terminator(b1, Terminator::Return(Some(n)));
    let c = b.ins(b2, InstKind::GlobalGet(calls), Type::Int, SrcLoc::NONE);
    let one = b.ins(b2, InstKind::IConst(1), Type::Int, SrcLoc::NONE);
    let c1 = b.ins(
        b2,
        InstKind::Binary(BinaryOp::IAdd, c, one),
        Type::Int,
        SrcLoc::NONE,
    );
    b.effect(b2, InstKind::GlobalSet(calls, c1), SrcLoc::NONE);
    let n1 = b.ins(
        b2,
        InstKind::Binary(BinaryOp::ISub, n, one),
        Type::Int,
        SrcLoc::NONE,
    );
    let r1 = b.ins(b2, InstKind::Call(fib, vec![n1]), Type::Int, loc(3, 12));
    let n2 = b.ins(
        b2,
        InstKind::Binary(BinaryOp::ISub, n, two),
        Type::Int,
        SrcLoc::NONE,
    );
    let r2 = b.ins(
        b2,
        InstKind::Call(fib, vec![n2]),
        Type::Int,
        SrcLoc {
            file: 1,
            line: 3,
            col: 24,
        },
    );
    let s = b.ins(
        b2,
        InstKind::Binary(BinaryOp::IAdd, r1, r2),
        Type::Int,
        SrcLoc::NONE,
    );
    b.set_terminator(b2, Terminator::Return(Some(s)));
    p.funcs.push(f);

    let mut m = Function::new(
        ".main",
        Signature {
            params: vec![],
            ret: Type::Unit,
        },
    );
    let mut b = FunctionBuilder::new(&mut m);
    let e = b.create_block();
    let ten = b.ins(e, InstKind::IConst(10), Type::Int, SrcLoc::NONE);
    let r = b.ins(e, InstKind::Call(fib, vec![ten]), Type::Int, loc(5, 7));
    let s = b.ins(e, InstKind::ToStr(r), Type::Str, SrcLoc::NONE);
    let t = b.ins(
        e,
        InstKind::SConst("fib(10) = \"\\\n\u{7}".into()),
        Type::Str,
        SrcLoc::NONE,
    );
    let u = b.ins(e, InstKind::StrConcat(t, s), Type::Str, SrcLoc::NONE);
    b.effect(e, InstKind::Print(u), loc(5, 1));
    let nan = b.ins(
        e,
        InstKind::FConst(0xfff8_0000_0000_002a),
        Type::Float,
        SrcLoc::NONE,
    );
    let tiny = b.ins(
        e,
        InstKind::FConst(1e-300f64.to_bits()),
        Type::Float,
        SrcLoc::NONE,
    );
    let neg0 = b.ins(
        e,
        InstKind::FConst((-0.0f64).to_bits()),
        Type::Float,
        SrcLoc::NONE,
    );
    let arr = b.ins(
        e,
        InstKind::ArrayLit(vec![nan, tiny, neg0]),
        Type::Float.array_of().unwrap(),
        SrcLoc::NONE,
    );
    let k = b.ins(e, InstKind::ArrayLen(arr), Type::Int, SrcLoc::NONE);
    let exit = b.create_block();
    b.set_terminator(
        e,
        Terminator::Switch {
            value: Some(k),
            cases: vec![
                (3, BlockCall::new(exit, vec![])),
                (-4, BlockCall::new(exit, vec![])),
            ],
            default: BlockCall::new(exit, vec![]),
        },
    );
    b.set_terminator(exit, Terminator::Return(None));
    let main = p.funcs.push(m);
    p.main = Some(main);
    p.funcs.push(Function::new(
        "fib",
        Signature {
            params: vec![Type::Str.array_of().unwrap()],
            ret: Type::Unit,
        },
    ));
    p
}

const FIB_TEXT: &str = r#"file 0 "fib.wdl"
global g0 "calls": int
main fn1

fn fn0 "fib"(int) -> int @1:1 {
block0(v0: int):
    v1: int = iconst 2
    v2: bool = icmp lt v0, v1 @2:8
    br v2, block1, block2
block1:
    return v0
block2:
    v3: int = global_get g0
    v4: int = iconst 1
    v5: int = iadd v3, v4
    global_set g0, v5
    v6: int = isub v0, v4
    v7: int = call fn0 "fib"(v6) @3:12
    v8: int = isub v0, v1
    v9: int = call fn0 "fib"(v8) @f1:3:24
    v10: int = iadd v7, v9
    return v10
}

fn fn1 ".main"() -> void {
block0:
    v0: int = iconst 10
    v1: int = call fn0 "fib"(v0) @5:7
    v2: str = to_str v1
    v3: str = sconst "fib(10) = \"\\\n\u{7}"
    v4: str = str_concat v3, v2
    print v4 @5:1
    v5: float = fconst 0xfff800000000002a
    v6: float = fconst 1e-300
    v7: float = fconst -0.0
    v8: [float] = array_lit [v5, v6, v7]
    v9: int = array_len v8
    switch v9 [3: block1, -4: block1] default block1
block1:
    return
}

fn fn2 "fib"([str]) -> void
"#;

#[test]
fn golden_print() {
    let p = fib_program();
    assert_eq!(print_program(&p), FIB_TEXT);
    waddle_opt::ir::verify_program(&p).unwrap();
}

#[test]
fn golden_parse() {
    let p = parse_program(FIB_TEXT).unwrap();
    assert_eq!(p, fib_program());
    assert_eq!(
        print_function(&p, FuncId::from_u32(2)),
        "fn fn2 \"fib\"([str]) -> void\n"
    );
}

#[test]
fn comments_whitespace_and_empty_input() {
    let text = "; a comment\n  fn fn0 \"f\"(int)->int{block0(v0:int): ; entry\n return v0 }";
    let p = parse_program(text).unwrap();
    assert_eq!(
        print_program(&p),
        "fn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n    return v0\n}\n"
    );
    assert_eq!(parse_program("").unwrap(), Program::default());
    assert_eq!(print_program(&Program::default()), "");
}

#[test]
fn gaps_become_detached_placeholders() {
    // A function whose arenas hold entries that are not in the layout.
    let mut f = Function::new(
        "g",
        Signature {
            params: vec![],
            ret: Type::Int,
        },
    );
    let mut b = FunctionBuilder::new(&mut f);
    let dead_block = b.create_block();
    let entry = b.create_block();
    let _dead = b.ins(dead_block, InstKind::IConst(1), Type::Float, SrcLoc::NONE);
    let live = b.ins(entry, InstKind::IConst(2), Type::Int, SrcLoc::NONE);
    b.set_terminator(entry, Terminator::Return(Some(live)));
    b.set_layout(vec![entry]);
    let mut p = Program::default();
    p.funcs.push(f);
    let text = print_program(&p);
    assert_eq!(
        text,
        "fn fn0 \"g\"() -> int {\nblock1:\n    v1: int = iconst 2\n    return v1\n}\n"
    );
    let q = parse_program(&text).unwrap();
    assert_eq!(print_program(&q), text);
    let g = &q.funcs[FuncId::from_u32(0)];
    assert_eq!(g.blocks().len(), 2);
    assert_eq!(g.values().len(), 2);
    assert!(g.blocks()[g.layout()[0]].insts.len() == 1 && g.insts().len() == 2);
    waddle_opt::ir::verify_program(&q).unwrap();
}

#[test]
fn parse_single_function() {
    let f = parse_function("fn fn7 \"h\"(float) -> float {\nblock0(v0: float):\n    v1: float = call fn3(v0)\n    return v1\n}\n").unwrap();
    assert_eq!(f.name(), "h");
    assert_eq!(f.layout().len(), 1);
    assert!(parse_function("fn fn0 \"h\"() -> void\nfn fn1 \"i\"() -> void").is_err());
}

/// `text` fails to parse with exactly `expected` (`line:col: message`).
#[track_caller]
fn parse_err(text: &str, expected: &str) {
    match parse_program(text) {
        Ok(p) => panic!("parsed: {}", print_program(&p)),
        Err(e) => assert_eq!(e.to_string(), expected, "input:\n{text}"),
    }
}

#[test]
fn parse_errors_have_locations() {
    parse_err(
        "fn fn1 \"f\"() -> void",
        "1:4: expected function fn0 next, found fn1",
    );
    parse_err("global g0 \"x\": void", "1:1: a global cannot be void");
    parse_err("fn fn0 \"f\"() -> [[void]]", "1:19: unknown type `void`");
    parse_err(
        "fn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n    v1: int = iadd v0, v2\n    return v1\n}",
        "3:24: undefined value v2",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    jump block4\n}",
        "3:10: undefined block block4",
    );
    parse_err("fn fn0 \"f\"() -> void {\nblock0:\n    v0: int = iconst 1\n    v0: int = iconst 2\n    return\n}", "4:5: v0 is defined twice");
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    return\nblock0:\n    return\n}",
        "4:1: block0 is defined twice",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: int = iconst 1\n}",
        "4:1: block0 has no terminator",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: int = frobnicate 1\n    return\n}",
        "3:15: unknown instruction `frobnicate`",
    );
    parse_err("fn fn0 \"f\"() -> void {\nblock0:\n    v0: int = iconst 99999999999999999999\n    return\n}", "3:22: `99999999999999999999` is not a 64-bit integer");
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: float = fconst 1.2.3\n    return\n}",
        "3:24: `1.2.3` is not a float",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: str = sconst \"a\\qb\"\n    return\n}",
        "3:25: unknown escape `\\q`",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: str = sconst \"abc\n",
        "3:22: unterminated string literal",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: int = call fn1(v0)\n    return\n}",
        "3:20: undefined function fn1",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    call fn0 \"g\"()\n    return\n}",
        "3:10: fn0 is named \"f\", not \"g\"",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: int = global_get g0\n    return\n}",
        "3:26: undefined global g0",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    v0: bool = icmp less v1, v1\n    return\n}",
        "3:21: unknown condition `less`",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    return\n",
        "4:1: expected a block label or `}`, found end of input",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    jump block99999999\n}",
        "3:10: block number 99999999 is too large for this input",
    );
    parse_err("main fn3", "1:6: undefined function fn3");
    parse_err("fn fn0 \"f\"() -> void #", "1:22: unexpected character '#'");
    parse_err(
        "hello",
        "1:1: expected `file`, `global`, `host`, `main` or `fn`, found `hello`",
    );
    parse_err(
        "fn fn0 \"f\"() -> void {\nblock0:\n    host_call h0 \"emit\"()\n    return\n}",
        "3:15: undefined host function h0",
    );
    parse_err(
        "host h0 \"emit\"(int) -> void\nfn fn0 \"f\"() -> void {\nblock0:\n    v0: int = iconst 1\n    host_call h0 \"other\"(v0)\n    return\n}",
        "5:15: h0 is named \"emit\", not \"other\"",
    );
    parse_err(
        &format!("global g0 \"x\": {}int{}", "[".repeat(65), "]".repeat(65)),
        "1:16: array types nest at most 64 deep",
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The parser never panics on arbitrary text.
    #[test]
    fn arbitrary_text_never_panics(s in "[ -~\n\u{e9}]{0,200}") {
        let _ = parse_program(&s);
    }

    /// The parser never panics on mutated printed programs, and whatever it
    /// accepts prints to a fixpoint.
    #[test]
    fn mutated_programs(
        choices in prop::collection::vec(any::<u32>(), 0..300),
        at in any::<prop::sample::Index>(),
        del in 0usize..8,
        ins in "[ -~\n]{0,4}",
    ) {
        let p = common::random_program(&mut common::Gen::new(choices));
        let text = print_program(&p);
        let chars: Vec<char> = text.chars().collect();
        let i = at.index(chars.len() + 1);
        let j = (i + del).min(chars.len());
        let mutated: String = chars[..i].iter().chain(ins.chars().collect::<Vec<_>>().iter()).chain(&chars[j..]).collect();
        if let Ok(q) = parse_program(&mutated) {
            // The verifier never panics on whatever parses.
            let _ = waddle_opt::ir::verify_program(&q);
            let t = print_program(&q);
            let r = parse_program(&t).map_err(|e| TestCaseError::fail(format!("{e}\n{t}")))?;
            prop_assert_eq!(print_program(&r), t);
        }
    }
}

#[test]
fn host_functions_round_trip_and_verify() {
    let text = "host h0 \"emit\"(int, str) -> void\nhost h1 \"pi\"() -> float\n\nfn fn0 \"f\"(int) -> float {\nblock0(v0: int):\n    v1: str = sconst \"x\"\n    host_call h0 \"emit\"(v0, v1) @2:5\n    v2: float = host_call h1 \"pi\"() @3:5\n    return v2\n}\n";
    let p = parse_program(text).unwrap();
    assert_eq!(p.host_fns.len(), 2);
    assert_eq!(print_program(&p), text);
    waddle_opt::ir::verify_program(&p).unwrap();
    // A wrong argument type is a verifier error.
    let bad = text.replace(
        "host_call h0 \"emit\"(v0, v1)",
        "host_call h0 \"emit\"(v1, v1)",
    );
    assert!(waddle_opt::ir::verify_program(&parse_program(&bad).unwrap()).is_err());
}
