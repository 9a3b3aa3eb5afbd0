//! The verifier catches each class of error, and its messages name the
//! function, block and instruction.

mod common;

use waddle_opt::ir::{
    parse_program, verify_function, verify_program, BinaryOp, BlockCall, FuncId, Function,
    FunctionBuilder, InstKind, Program, Signature, SrcLoc, Terminator, Type, VerifyError,
};

/// Parses `text` (which must parse) and returns the verifier's messages.
fn errors_of(text: &str) -> Vec<String> {
    let p = parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    errors(&p)
}

fn errors(p: &Program) -> Vec<String> {
    match verify_program(p) {
        Ok(()) => Vec::new(),
        Err(es) => es.iter().map(VerifyError::to_string).collect(),
    }
}

/// Asserts that some error message contains every fragment.
#[track_caller]
fn assert_error(errs: &[String], fragments: &[&str]) {
    assert!(
        errs.iter().any(|e| fragments.iter().all(|f| e.contains(f))),
        "no error containing {fragments:?} in {errs:#?}"
    );
}

/// `fn0 "f"(int) -> int` with `body` as its blocks, plus declarations
/// `fn1 "g"(int, float) -> int` and `fn2 "h"() -> void`, and globals.
fn with_body(body: &str) -> Vec<String> {
    errors_of(&format!(
        "global g0 \"count\": int\nglobal g1 \"names\": [str]\n\
         fn fn0 \"f\"(int) -> int {{\n{body}}}\n\
         fn fn1 \"g\"(int, float) -> int\nfn fn2 \"h\"() -> void\n"
    ))
}

#[test]
fn valid_function_passes() {
    let errs = with_body(
        "block0(v0: int):
    v1: int = iconst 2
    v2: bool = icmp lt v0, v1
    br v2, block1, block2(v1)
block1:
    return v0
block2(v3: int):
    v4: int = isub v0, v3
    v5: float = itof v4
    v6: int = call fn1 \"g\"(v4, v5) @3:12
    call fn2 \"h\"()
    v7: [str] = global_get g1
    v8: str = sconst \"x\"
    array_push v7, v8
    v9: int = array_len v7
    bounds_check v7, v9
    v10: str = array_get v7, v9
    v11: bool = str_cmp eq v10, v8
    v12: [[str]] = array_repeat v7, v9
    v13: [str] = array_pop v12
    v14: [bool] = array_lit [v11, v2]
    switch v6 [0: block1, 5: block2(v9)] default block3(v11)
block3(v15: bool):
    v16: bool = bcmp ne v15, v2
    assert v16
    v17: str = to_str v14
    print v17
    return v4
",
    );
    assert_eq!(errs, Vec::<String>::new());
}

#[test]
fn entry_params_must_match_signature() {
    let errs = with_body("block0(v0: float):\n    v1: int = iconst 1\n    return v1\n");
    assert_error(
        &errs,
        &[
            "fn0 \"f\"",
            "block0",
            "entry block parameters (float)",
            "signature (int)",
        ],
    );
    let errs = with_body("block0:\n    v1: int = iconst 1\n    return v1\n");
    assert_error(&errs, &["entry block parameters ()"]);
}

#[test]
fn arithmetic_typing() {
    let errs = with_body(
        "block0(v0: int):\n    v1: float = fconst 1.0\n    v2: int = iadd v0, v1 @2:5\n    return v2\n",
    );
    assert_error(
        &errs,
        &[
            "fn0 \"f\", block0, `v2: int = iadd v0, v1 @2:5`",
            "right operand v1 has type float, expected int",
        ],
    );
    let errs = with_body("block0(v0: int):\n    v1: int = icmp lt v0, v0\n    return v1\n");
    assert_error(
        &errs,
        &[
            "v1: int = icmp lt v0, v0",
            "result has type int, expected bool",
        ],
    );
    let errs = with_body("block0(v0: int):\n    v1: int = ftoi v0\n    return v1\n");
    assert_error(&errs, &["ftoi", "operand v0 has type int, expected float"]);
    let errs = with_body(
        "block0(v0: int):\n    v1: bool = bconst true\n    v2: bool = bcmp lt v1, v1\n    return v0\n",
    );
    assert_error(&errs, &["bcmp supports only eq and ne"]);
    let errs = with_body("block0(v0: int):\n    v1: float = iconst 3\n    return v0\n");
    assert_error(&errs, &["result has type float, expected int"]);
}

#[test]
fn result_presence() {
    let errs = with_body("block0(v0: int):\n    v1: int = print v0\n    return v0\n");
    assert_error(&errs, &["print v0", "produces no value but has a result"]);
    let errs = with_body("block0(v0: int):\n    iadd v0, v0\n    return v0\n");
    assert_error(
        &errs,
        &["`iadd v0, v0`", "produces a int but has no result"],
    );
    let errs = with_body("block0(v0: int):\n    v1: int = call fn2 \"h\"()\n    return v0\n");
    assert_error(&errs, &["call fn2", "produces no value but has a result"]);
    let errs = with_body(
        "block0(v0: int):\n    v1: float = fconst 0.5\n    call fn1 \"g\"(v0, v1)\n    return v0\n",
    );
    assert_error(&errs, &["call fn1", "produces a int but has no result"]);
}

#[test]
fn call_typing() {
    let errs = with_body("block0(v0: int):\n    v1: int = call fn1 \"g\"(v0)\n    return v1\n");
    assert_error(&errs, &["takes 2 arguments, 1 given"]);
    let errs = with_body("block0(v0: int):\n    v1: int = call fn1 \"g\"(v0, v0)\n    return v1\n");
    assert_error(&errs, &["argument 1 v0 has type int, expected float"]);
}

#[test]
fn memory_typing() {
    let errs = with_body("block0(v0: int):\n    v1: int = array_get v0, v0\n    return v1\n");
    assert_error(&errs, &["operand v0 has type int, expected an array"]);
    let errs = with_body("block0(v0: int):\n    v1: [str] = array_lit [v0]\n    return v0\n");
    assert_error(&errs, &["element 0 v0 has type int, expected str"]);
    let errs = with_body("block0(v0: int):\n    v1: int = array_lit []\n    return v0\n");
    assert_error(&errs, &["array_lit result has type int, expected an array"]);
    let errs =
        with_body("block0(v0: int):\n    v1: [float] = array_repeat v0, v0\n    return v0\n");
    assert_error(&errs, &["result has type [float], expected [int]"]);
    let errs = with_body("block0(v0: int):\n    v1: str = global_get g0\n    return v0\n");
    assert_error(&errs, &["result has type str, expected int"]);
    let errs = with_body(
        "block0(v0: int):\n    v1: bool = bconst true\n    global_set g0, v1\n    return v0\n",
    );
    assert_error(&errs, &["stored value v1 has type bool, expected int"]);
    let errs = with_body(
        "block0(v0: int):\n    v1: [str] = global_get g1\n    array_set v1, v0, v0\n    return v0\n",
    );
    assert_error(&errs, &["stored value v0 has type int, expected str"]);
    let errs = with_body("block0(v0: int):\n    v1: bool = str_cmp eq v0, v0\n    return v0\n");
    assert_error(&errs, &["left operand v0 has type int, expected str"]);
    let errs = with_body("block0(v0: int):\n    assert v0\n    return v0\n");
    assert_error(&errs, &["condition v0 has type int, expected bool"]);
}

#[test]
fn terminator_typing() {
    let errs = with_body("block0(v0: int):\n    v1: float = itof v0\n    switch v1 [] default block1\nblock1:\n    return v0\n");
    assert_error(
        &errs,
        &["switch v1 [] default block1", "scrutinee v1 has type float"],
    );
    let errs = with_body("block0(v0: int):\n    switch v0 [1: block1, 1: block1] default block1\nblock1:\n    return v0\n");
    assert_error(&errs, &["duplicate case key 1"]);
    let errs = with_body("block0(v0: int):\n    v1: bool = bconst true\n    switch v1 [2: block1] default block1\nblock1:\n    return v0\n");
    assert_error(&errs, &["case key 2 on a bool scrutinee"]);
    let errs = with_body("block0(v0: int):\n    jump block1\nblock1(v1: int):\n    return v1\n");
    assert_error(
        &errs,
        &[
            "`jump block1`",
            "passes 0 arguments, the block has 1 parameters",
        ],
    );
    let errs = with_body("block0(v0: int):\n    v1: float = itof v0\n    jump block1(v1)\nblock1(v2: int):\n    return v2\n");
    assert_error(&errs, &["passes v1: float for parameter v2: int"]);
    let errs = with_body("block0(v0: int):\n    v1: float = itof v0\n    return v1\n");
    assert_error(&errs, &["returned value v1 has type float, expected int"]);
    let errs = with_body("block0(v0: int):\n    return\n");
    assert_error(&errs, &["returns nothing, expected a int"]);
    let errs = with_body(
        "block0(v0: int):\n    switch _ [3: block1] default block1\nblock1:\n    return v0\n",
    );
    assert_error(&errs, &["switch has cases but no scrutinee"]);
}

#[test]
fn unreachable_block() {
    let errs = with_body("block0(v0: int):\n    return v0\nblock1:\n    return v0\n");
    assert_error(&errs, &["block1: block is unreachable"]);
}

#[test]
fn dominance() {
    // Use before definition in the same block.
    let errs = with_body(
        "block0(v0: int):\n    v2: int = iadd v1, v0\n    v1: int = iconst 1\n    return v2\n",
    );
    assert_error(
        &errs,
        &["v2: int = iadd v1, v0", "use of v1 is not dominated"],
    );
    // Use of a value from a sibling block.
    let errs = with_body(
        "block0(v0: int):
    v1: bool = bconst true
    br v1, block1, block2
block1:
    v2: int = iconst 1
    jump block3
block2:
    jump block3
block3:
    return v2
",
    );
    assert_error(
        &errs,
        &["block3, `return v2`", "use of v2 is not dominated"],
    );
    // Edge arguments are evaluated in the source block, so passing the
    // target's own parameter back on entry is not dominated.
    let errs =
        with_body("block0(v0: int):\n    jump block1(v1)\nblock1(v1: int):\n    return v1\n");
    assert_error(
        &errs,
        &["block0, `jump block1(v1)`", "use of v1 is not dominated"],
    );
    // A loop passing its own parameter around the back edge is fine.
    let errs = with_body(
        "block0(v0: int):\n    jump block1(v0)\nblock1(v1: int):\n    v2: bool = icmp lt v1, v0\n    br v2, block1(v1), block2\nblock2:\n    return v1\n",
    );
    assert_eq!(errs, Vec::<String>::new());
}

fn builder_program() -> (Program, FuncId) {
    let mut p = Program::default();
    let mut f = Function::new(
        "b",
        Signature {
            params: vec![Type::Int],
            ret: Type::Int,
        },
    );
    let mut b = FunctionBuilder::new(&mut f);
    let b0 = b.create_block();
    let x = b.append_block_param(b0, Type::Int);
    let b1 = b.create_block();
    let y = b.append_block_param(b1, Type::Int);
    let s = b.ins(
        b0,
        InstKind::Binary(BinaryOp::IAdd, x, x),
        Type::Int,
        SrcLoc::NONE,
    );
    b.set_terminator(b0, Terminator::jump(BlockCall::new(b1, vec![s])));
    b.set_terminator(b1, Terminator::Return(Some(y)));
    let id = p.funcs.push(f);
    (p, id)
}

#[test]
fn builder_program_passes() {
    let (p, id) = builder_program();
    assert_eq!(verify_function(&p, id), Ok(()));
}

#[test]
fn structural_errors() {
    let (base, id) = builder_program();
    let b0 = base.funcs[id].layout()[0];
    let b1 = base.funcs[id].layout()[1];

    let mut p = base.clone();
    FunctionBuilder::new(&mut p.funcs[id]).layout_mut().push(b1);
    assert_error(&errors(&p), &["block1: block appears twice in the layout"]);

    let mut p = base.clone();
    let ghost = p.funcs[id].blocks().next_key();
    FunctionBuilder::new(&mut p.funcs[id])
        .layout_mut()
        .push(ghost);
    assert_error(
        &errors(&p),
        &["layout lists block2, which is not in the block arena"],
    );

    // An instruction listed in two blocks defines its value twice.
    let mut p = base.clone();
    let inst = p.funcs[id].blocks()[b0].insts[0];
    FunctionBuilder::new(&mut p.funcs[id])
        .block_mut(b1)
        .insts
        .push(inst);
    assert_error(&errors(&p), &["block1", "inst0 also appears in block0"]);

    // A value whose recorded definition disagrees.
    let mut p = base.clone();
    let y = p.funcs[id].blocks()[b1].params[0];
    FunctionBuilder::new(&mut p.funcs[id])
        .block_mut(b0)
        .params
        .push(y);
    FunctionBuilder::new(&mut p.funcs[id])
        .sig_mut()
        .params
        .push(Type::Int);
    let errs = errors(&p);
    assert_error(
        &errs,
        &["block0", "v1 records its definition as Param(block1, 0)"],
    );
    assert_error(&errs, &["block1", "v1 is defined more than once"]);

    // An operand defined by a detached instruction.
    let mut p = base.clone();
    let f = &mut p.funcs[id];
    let mut bld = FunctionBuilder::new(f);
    let d = bld.ins(b0, InstKind::IConst(3), Type::Int, SrcLoc::NONE);
    bld.block_mut(b0).insts.pop();
    bld.set_terminator(b1, Terminator::Return(Some(d)));
    assert_error(
        &errors(&p),
        &[
            "block1, `return v3`",
            "operand v3 is not defined in the layout",
        ],
    );

    // An edge to a block outside the layout.
    let mut p = base.clone();
    FunctionBuilder::new(&mut p.funcs[id]).layout_mut().pop();
    assert_error(
        &errors(&p),
        &["block0", "edge target block1 is not in the layout"],
    );

    // An instruction id outside the arena.
    let mut p = base.clone();
    let ghost = p.funcs[id].insts().next_key();
    FunctionBuilder::new(&mut p.funcs[id])
        .block_mut(b0)
        .insts
        .push(ghost);
    assert_error(&errors(&p), &["inst1 is not in the instruction arena"]);

    // Void values and void parameters.
    let mut p = base.clone();
    FunctionBuilder::new(&mut p.funcs[id]).value_mut(y).ty = Type::Unit;
    assert_error(&errors(&p), &["v1 has type void"]);
    let mut p = base;
    FunctionBuilder::new(&mut p.funcs[id]).sig_mut().params[0] = Type::Unit;
    assert_error(&errors(&p), &["signature parameter 0 has type void"]);
}

#[test]
fn program_level_errors() {
    let errs = errors_of("global g0 \"x\": int\nmain fn0\nfn fn0 \"m\"() -> void\n");
    assert_eq!(errs, Vec::<String>::new());
    let (mut p, _) = builder_program();
    p.main = Some(FuncId::from_u32(7));
    p.globals.push(waddle_opt::ir::GlobalData {
        name: "v".into(),
        ty: Type::Unit,
    });
    let errs = errors(&p);
    assert_error(&errs, &["program: main function fn7 does not exist"]);
    assert_error(&errs, &["program: global g0 \"v\" has type void"]);
    let (p, _) = builder_program();
    assert!(verify_function(&p, FuncId::from_u32(3)).is_err());
}

mod corrupted {
    //! Random corruptions of valid programs: the verifier, printer and use
    //! lists never panic, and dropping a non-entry block (always the target
    //! of an edge in generated programs) is reported.

    use super::common;
    use cranelift_entity::EntityRef;
    use proptest::prelude::*;
    use waddle_opt::ir::{print_program, verify_program, Block, FunctionBuilder, UseLists, Value};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn corrupted_programs_never_panic(
            choices in prop::collection::vec(any::<u32>(), 0..400),
            which in any::<prop::sample::Index>(),
            arg in any::<prop::sample::Index>(),
            target in 0u32..40,
            kind in 0u8..4,
        ) {
            let mut p = common::random_program(&mut common::Gen::new(choices));
            let ids: Vec<_> = p.funcs.keys().filter(|&id| !p.funcs[id].is_declaration()).collect();
            prop_assume!(!ids.is_empty());
            let id = ids[which.index(ids.len())];
            let f = &mut p.funcs[id];
            let mut must_fail = false;
            match kind {
                // Redirect one operand of some instruction to another value.
                0 => {
                    let insts: Vec<_> = f.layout().iter().flat_map(|&b| f.blocks()[b].insts.clone()).collect();
                    prop_assume!(!insts.is_empty());
                    let inst = insts[arg.index(insts.len())];
                    let mut first = true;
                    FunctionBuilder::new(f).inst_mut(inst).kind.for_each_arg_mut(|v| {
                        if first {
                            *v = Value::new(target as usize);
                            first = false;
                        }
                    });
                }
                // Retarget an edge.
                1 => {
                    let b = f.layout()[arg.index(f.layout().len())];
                    if let Some(c) = FunctionBuilder::new(f).block_mut(b).term.successors_mut().next() {
                        c.block = Block::new(target as usize);
                    }
                }
                // Reorder the layout (may move the entry).
                2 => {
                    let n = f.layout().len();
                    FunctionBuilder::new(f).layout_mut().rotate_left(arg.index(n));
                }
                // Drop a block from the layout.
                _ => {
                    let n = f.layout().len();
                    let i = arg.index(n);
                    FunctionBuilder::new(f).layout_mut().remove(i);
                    must_fail = i != 0;
                }
            }
            let _ = print_program(&p);
            let _ = UseLists::compute(&p.funcs[id]);
            let result = verify_program(&p);
            prop_assert!(!must_fail || result.is_err());
        }
    }
}
