//! Lowering tests: hand-built ASTs and real source through `compile`,
//! checking SSA well-formedness (our own check plus the IR verifier),
//! trivial-parameter removal, unreachable-code removal and locations.

use std::collections::HashSet;

use waddle_opt::analysis::{ControlFlowGraph, DomTree};
use waddle_opt::ir::{
    self, BinaryOp, Block, Function, InstKind, Program, Signature, SrcLoc, Terminator, Type, Value,
    ValueDef,
};

use crate::ast::*;
use crate::check::{Callee, FuncInfo, LocalIdx, LocalInfo, Typed, Var};
use crate::{Builtin, CompileOptions, SourceFile, SourceMap};

/// Compiles `src` (one file named `t.wdl`) and returns the program.
fn compile_with(src: &str, repl: bool) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("t.wdl", src));
    let options = CompileOptions {
        repl,
        ..CompileOptions::default()
    };
    match crate::compile(&sources, &options) {
        Ok(c) => c.program,
        Err(d) => panic!("compile error: {d:?}"),
    }
}

fn compile(src: &str) -> Program {
    let p = compile_with(src, false);
    check_program(&p);
    p
}

fn func<'p>(p: &'p Program, name: &str) -> &'p Function {
    &p.funcs[p.func_by_name(name).expect("function exists")]
}

/// Every instruction of `f` in layout order.
fn insts(f: &Function) -> Vec<&InstKind> {
    f.layout()
        .iter()
        .flat_map(|&b| f.blocks()[b].insts.iter().map(|&i| &f.insts()[i].kind))
        .collect()
}

fn loc_of(f: &Function, pred: impl Fn(&InstKind) -> bool) -> SrcLoc {
    f.layout()
        .iter()
        .flat_map(|&b| f.blocks()[b].insts.iter())
        .find(|&&i| pred(&f.insts()[i].kind))
        .map(|&i| f.insts()[i].loc)
        .expect("instruction present")
}

/// Our own SSA checks: reachable layout, arity and types of edges, every use
/// dominated by its definition, no trivial block parameters; then the
/// shared IR verifier.
pub(super) fn check_program(p: &Program) {
    for (_, f) in p.funcs.iter() {
        if !f.is_declaration() {
            check_ssa(f);
        }
    }
    if let Err(errs) = ir::verify_program(p) {
        panic!("verifier: {errs:?}\n{}", ir::print_program(p));
    }
}

fn check_ssa(f: &Function) {
    let cfg = ControlFlowGraph::compute(f);
    let dom = DomTree::compute(f, &cfg);
    let text = format!("{f:#?}");
    let mut pos = std::collections::HashMap::new();
    for &b in f.layout() {
        assert!(dom.is_reachable(b), "unreachable {b} in {}", f.name());
        for (i, &inst) in f.blocks()[b].insts.iter().enumerate() {
            pos.insert(inst, (b, i));
        }
        for (i, &v) in f.blocks()[b].params.iter().enumerate() {
            assert_eq!(f.values()[v].def, ValueDef::Param(b, i as u32));
        }
    }
    let defined_before = |v: Value, b: Block, index: usize| -> bool {
        match f.values()[v].def {
            ValueDef::Param(db, _) => dom.dominates(db, b),
            ValueDef::Inst(i) => match pos.get(&i) {
                Some(&(db, di)) => (db == b && di < index) || (db != b && dom.dominates(db, b)),
                None => false,
            },
        }
    };
    for &b in f.layout() {
        let bd = &f.blocks()[b];
        for (idx, &inst) in bd.insts.iter().enumerate() {
            f.insts()[inst].kind.for_each_arg(|v| {
                assert!(
                    defined_before(v, b, idx),
                    "{v} not dominating use in {b}\n{text}"
                );
            });
        }
        bd.term
            .for_each_arg(|v| assert!(defined_before(v, b, usize::MAX), "{v} in term of {b}"));
        for call in bd.term.successors() {
            let params = &f.blocks()[call.block].params;
            assert_eq!(
                params.len(),
                call.args.len(),
                "arity of edge {b}->{}",
                call.block
            );
            for (&a, &p) in call.args.iter().zip(params) {
                assert_eq!(f.value_type(a), f.value_type(p), "edge arg type");
            }
        }
        if let Terminator::Return(v) = &bd.term {
            assert_eq!(v.map_or(Type::Unit, |v| f.value_type(v)), f.sig().ret);
        }
    }
    // No trivial parameters.
    for &b in f.layout() {
        for (i, &p) in f.blocks()[b].params.iter().enumerate() {
            if b == f.entry() {
                continue;
            }
            let mut others = HashSet::new();
            for &pred in cfg.preds(b) {
                for call in f.blocks()[pred].term.successors() {
                    if call.block == b && call.args[i] != p {
                        others.insert(call.args[i]);
                    }
                }
            }
            assert!(
                others.len() >= 2,
                "trivial param {p} of {b} in {}",
                f.name()
            );
        }
    }
}

fn loop_header_params(f: &Function) -> Vec<usize> {
    let cfg = ControlFlowGraph::compute(f);
    let dom = DomTree::compute(f, &cfg);
    f.layout()
        .iter()
        .filter(|&&b| cfg.preds(b).iter().any(|&p| dom.dominates(b, p)))
        .map(|&b| f.blocks()[b].params.len())
        .collect()
}

#[test]
fn program_shape_and_fib() {
    let src = "fn fib(n: int) -> int {\n    if n < 2 { return n; }\n    return fib(n - 1) + fib(n - 2);\n}\nvar calls = 0;\nfn bump() { calls += 1; }\nprint(fib(20));\nbump();\n";
    let p = compile(src);
    assert_eq!(p.files, vec!["t.wdl".to_string()]);
    assert_eq!(p.funcs.len(), 3);
    let main = p.main.unwrap();
    assert_eq!(p.funcs[main].name(), ".main");
    assert_eq!(main.as_u32(), 2);
    assert_eq!(p.globals.len(), 1);
    let fib = func(&p, "fib");
    assert_eq!(
        fib.loc(),
        SrcLoc {
            file: 0,
            line: 1,
            col: 4
        }
    );
    // The call's location is the callee name.
    let call_loc = loc_of(fib, |k| matches!(k, InstKind::Call(..)));
    assert_eq!((call_loc.line, call_loc.col), (3, 12));
    let bump = func(&p, "bump");
    assert!(insts(bump)
        .iter()
        .any(|k| matches!(k, InstKind::GlobalGet(_))));
    assert!(insts(bump)
        .iter()
        .any(|k| matches!(k, InstKind::GlobalSet(..))));
}

#[test]
fn loop_carried_variables_get_header_params() {
    let p = compile("fn f(n: int) -> int { var s = 0; for i in 0..n { s += i; } return s; }");
    let f = func(&p, "f");
    // The counter and `s`; `n` is loop-invariant and gets no parameter.
    assert_eq!(loop_header_params(f), vec![2]);
}

#[test]
fn trivial_params_are_removed() {
    let p = compile(
        "fn f(x: int, y: int) -> int { var a = x; var b = y; while a < 10 { print(b); if a > 3 { b = b; } a += 1; } return a + b; }",
    );
    let f = func(&p, "f");
    // Only `a` changes in the loop (`b = b` is a copy of itself).
    assert_eq!(loop_header_params(f), vec![1]);
}

#[test]
fn unreachable_code_is_dropped() {
    let p = compile(
        "fn f() -> int { return 1; print(2); }\nfn g() -> int { while true { if true { return 1; } } }\nfn h() { for i in 0..3 { break; print(i); } while true { continue; print(9); } }",
    );
    for name in ["f", "g", "h"] {
        let f = func(&p, name);
        assert!(
            !insts(f).iter().any(|k| matches!(k, InstKind::Print(_))),
            "{name} keeps dead print"
        );
    }
    // `g` has no path past its `while true`: every block is reachable and
    // nothing falls off the end.
    let g = func(&p, "g");
    assert!(g
        .layout()
        .iter()
        .all(|&b| !matches!(g.blocks()[b].term, Terminator::Return(None))));
}

#[test]
fn trap_locations() {
    let src = "fn f(a: [int], x: int) -> int {\n  var y = 10 / x;\n  y %= x;\n  assert(y > 0);\n  let z = pop(a);\n  return a[y] + [0; x][0] + z;\n}\n";
    let p = compile(src);
    let f = func(&p, "f");
    let at = |pred: &dyn Fn(&InstKind) -> bool| {
        let l = loc_of(f, pred);
        (l.line, l.col)
    };
    assert_eq!(
        at(&|k| matches!(k, InstKind::Binary(BinaryOp::IDiv, ..))),
        (2, 14)
    );
    assert_eq!(
        at(&|k| matches!(k, InstKind::Binary(BinaryOp::IRem, ..))),
        (3, 5)
    );
    assert_eq!(at(&|k| matches!(k, InstKind::Assert(_))), (4, 3));
    assert_eq!(at(&|k| matches!(k, InstKind::ArrayPop(_))), (5, 11));
    assert_eq!(at(&|k| matches!(k, InstKind::BoundsCheck(..))), (6, 11));
    assert_eq!(at(&|k| matches!(k, InstKind::ArrayRepeat(..))), (6, 17));
}

#[test]
fn compound_index_assignment_order() {
    let p =
        compile("fn f(a: [int], i: int) { a[i] += g(); a[i] = g(); }\nfn g() -> int { return 1; }");
    let f = func(&p, "f");
    let seq: Vec<&str> = insts(f)
        .iter()
        .filter_map(|k| match k {
            InstKind::BoundsCheck(..) => Some("check"),
            InstKind::ArrayGet(..) => Some("get"),
            InstKind::ArraySet(..) => Some("set"),
            InstKind::Call(..) => Some("call"),
            InstKind::Binary(BinaryOp::IAdd, ..) => Some("add"),
            _ => None,
        })
        .collect();
    // `a[i] += g()` checks again after `g()` (it may have shrunk `a`).
    assert_eq!(
        seq,
        ["check", "get", "call", "add", "check", "set", "call", "check", "set"]
    );
}

#[test]
fn short_circuit_is_control_flow() {
    let p = compile("fn f(a: bool, b: bool) -> bool { return a && b || !a; }");
    let f = func(&p, "f");
    // Two joins, each with one bool parameter.
    let joins: Vec<_> = f
        .layout()
        .iter()
        .filter(|&&b| b != f.entry() && !f.blocks()[b].params.is_empty())
        .collect();
    assert_eq!(joins.len(), 2);
    for &&b in &joins {
        assert_eq!(f.value_type(f.blocks()[b].params[0]), Type::Bool);
    }
}

#[test]
fn for_bounds_evaluated_once_and_continue_goes_to_increment() {
    let p = compile(
        "fn hi() -> int { return 3; }\nfn f() { for i in 0..hi() { if i == 1 { continue; } print(i); } }",
    );
    let f = func(&p, "f");
    let calls = insts(f)
        .iter()
        .filter(|k| matches!(k, InstKind::Call(..)))
        .count();
    assert_eq!(calls, 1);
    // One loop: the header has only the counter.
    assert_eq!(loop_header_params(f), vec![1]);
}

#[test]
fn nested_loops_break_and_continue() {
    let p = compile(
        "var total = 0;\nfor i in 0..5 { var j = 0; while true { j += 1; if j > i { break; } if j == 2 { continue; } total += j; } }\nprint(total);",
    );
    let main = &p.funcs[p.main.unwrap()];
    assert_eq!(loop_header_params(main).len(), 2);
}

#[test]
fn strings_and_builtins() {
    let p = compile(
        "let s = \"a\" + str(1);\nprint(s < \"b\");\nprint(len(s));\nvar a: [float] = [];\npush(a, sqrt(2.0));\nprint(min(1, 2) + abs(-3));\nprint(max(1.0, floor(a[0])));\nprint(int(1.5) + len(a));\nprint(float(2) == 2.0);\nprint(true != false);\nprint(clock() > 0.0);\nprint([[1], []]);",
    );
    let main = &p.funcs[p.main.unwrap()];
    let ks = insts(main);
    let has = |f: &dyn Fn(&InstKind) -> bool| ks.iter().any(|k| f(k));
    assert!(has(&|k| matches!(k, InstKind::StrConcat(..))));
    assert!(has(&|k| matches!(k, InstKind::StrCmp(..))));
    assert!(has(&|k| matches!(k, InstKind::StrLen(_))));
    assert!(has(&|k| matches!(k, InstKind::ArrayLen(_))));
    assert!(has(&|k| matches!(k, InstKind::ArrayPush(..))));
    assert!(has(&|k| matches!(k, InstKind::Binary(BinaryOp::IMin, ..))));
    assert!(has(&|k| matches!(k, InstKind::Binary(BinaryOp::FMax, ..))));
    assert!(has(&|k| matches!(
        k,
        InstKind::Binary(BinaryOp::BCmp(_), ..)
    )));
    assert!(has(&|k| matches!(k, InstKind::Clock)));
    assert!(has(&|k| matches!(
        k,
        InstKind::Unary(ir::UnaryOp::IAbs, _) | InstKind::Unary(ir::UnaryOp::INeg, _)
    )));
    // The empty array literal takes its type from context.
    let ty_of_lits: Vec<Type> = main
        .layout()
        .iter()
        .flat_map(|&b| main.blocks()[b].insts.iter())
        .filter(|&&i| matches!(main.insts()[i].kind, InstKind::ArrayLit(_)))
        .map(|&i| main.value_type(main.insts()[i].result.unwrap()))
        .collect();
    assert!(ty_of_lits.contains(&Type::Float.array_of().unwrap()));
    assert!(ty_of_lits.contains(&Type::Int.array_of().unwrap()));
}

#[test]
fn repl_prints_bare_expression() {
    let p = compile_with("1 + 2", true);
    check_program(&p);
    let main = &p.funcs[p.main.unwrap()];
    assert!(insts(main).iter().any(|k| matches!(k, InstKind::Print(_))));
    let p = compile_with("1 + 2;", true);
    let main = &p.funcs[p.main.unwrap()];
    assert!(!insts(main).iter().any(|k| matches!(k, InstKind::Print(_))));
}

/// Builds a tiny module by hand (no parser or checker):
/// `var x = 0; while x < 3 { x = x + 1; } print(x);` as top-level code with
/// `x` a local, checking construction alone.
#[test]
fn hand_built_ast() {
    let span = Span::default();
    let mut typed = Typed::default();
    let mut next = 0u32;
    let mut mk = |kind: ExprKind, ty: Type, name: Option<Var>, call: Option<Callee>| {
        let id = ExprId(next);
        next += 1;
        typed.expr_types.push(ty);
        typed.names.push(name);
        typed.calls.push(call);
        Expr { id, kind, span }
    };
    let x = Var::Local(LocalIdx(0));
    let ident = |n: &str| Ident {
        name: n.into(),
        span,
    };
    let zero = mk(ExprKind::Int(0), Type::Int, None, None);
    let xr1 = mk(ExprKind::Name(ident("x")), Type::Int, Some(x), None);
    let three = mk(ExprKind::Int(3), Type::Int, None, None);
    let cond = mk(
        ExprKind::Binary {
            op: BinOp::Lt,
            op_span: span,
            lhs: Box::new(xr1),
            rhs: Box::new(three),
        },
        Type::Bool,
        None,
        None,
    );
    let target = mk(ExprKind::Name(ident("x")), Type::Int, Some(x), None);
    let xr2 = mk(ExprKind::Name(ident("x")), Type::Int, Some(x), None);
    let one = mk(ExprKind::Int(1), Type::Int, None, None);
    let sum = mk(
        ExprKind::Binary {
            op: BinOp::Add,
            op_span: span,
            lhs: Box::new(xr2),
            rhs: Box::new(one),
        },
        Type::Int,
        None,
        None,
    );
    let xr3 = mk(ExprKind::Name(ident("x")), Type::Int, Some(x), None);
    let print = mk(
        ExprKind::Call(Box::new(crate::ast::Call {
            callee: ident("print"),
            args: vec![xr3],
        })),
        Type::Unit,
        None,
        Some(Callee::Builtin(Builtin::Print)),
    );
    let stmt = |kind| Stmt { kind, span };
    let module = Module {
        items: vec![Item::Stmt(stmt(StmtKind::Block(crate::ast::Block {
            stmts: vec![
                stmt(StmtKind::Let {
                    mutable: true,
                    name: ident("x"),
                    ty: None,
                    init: zero,
                    decl: DeclId(0),
                }),
                stmt(StmtKind::While {
                    cond,
                    body: crate::ast::Block {
                        stmts: vec![stmt(StmtKind::Assign {
                            target,
                            op: None,
                            op_span: span,
                            value: sum,
                        })],
                        span,
                    },
                }),
                stmt(StmtKind::Expr {
                    expr: print,
                    semi: true,
                }),
            ],
            span,
        })))],
        expr_count: next,
        decl_count: 1,
    };
    typed.decls.push(Some(x));
    typed.locals.push(LocalInfo {
        name_span: span,
        ty: Type::Int,
        mutable: true,
    });
    typed.funcs.push(FuncInfo {
        name: "prelude_fn".into(),
        sig: Signature {
            params: vec![Type::Int],
            ret: Type::Int,
        },
        item: None,
    });
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("h.wdl", ""));
    let p = super::lower(&module, &typed, &sources, &CompileOptions::default());
    check_program(&p);
    assert!(p.funcs[ir::FuncId::from_u32(0)].is_declaration());
    let main = &p.funcs[p.main.unwrap()];
    assert_eq!(loop_header_params(main), vec![1]);
    // The print after the loop reads the header's parameter.
    let header = main
        .layout()
        .iter()
        .copied()
        .find(|&b| !main.blocks()[b].params.is_empty())
        .unwrap();
    let param = main.blocks()[header].params[0];
    assert!(insts(main).iter().any(|k| **k == InstKind::Print(param)));
}
