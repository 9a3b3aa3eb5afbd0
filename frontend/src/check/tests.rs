//! Checker unit tests: one per rule of docs/language.md, plus table contents.

use super::*;
use crate::ast::{Item, StmtKind};
use crate::{SourceFile, SourceMap};

/// Error messages with their 1-based line and column.
type Errors = Vec<(String, u32, u32)>;

fn run(src: &str, prelude: &Prelude, repl: bool) -> Result<(Module, Typed), Errors> {
    let mut sm = SourceMap::default();
    sm.add(SourceFile::new("t.wdl", src));
    let module = crate::parser::parse(&sm, repl).unwrap_or_else(|d| panic!("{src}: {d:?}"));
    match check(&module, prelude, repl) {
        Ok(t) => Ok((module, t)),
        Err(d) => Err(d
            .into_iter()
            .map(|d| {
                let (l, c) = sm.files[0].line_col(d.span.start);
                (d.message, l, c)
            })
            .collect()),
    }
}

fn ok(src: &str) -> Typed {
    match run(src, &Prelude::default(), false) {
        Ok((_, t)) => t,
        Err(d) => panic!("{src}: {d:?}"),
    }
}

fn errs(src: &str) -> Errors {
    match run(src, &Prelude::default(), false) {
        Ok(_) => panic!("{src} should not check"),
        Err(d) => d,
    }
}

/// The single error of `src`, which must contain `msg`.
fn err1(src: &str, msg: &str) {
    let d = errs(src);
    assert_eq!(d.len(), 1, "{src}: {d:?}");
    assert!(d[0].0.contains(msg), "{src}: {d:?}");
}

#[test]
fn well_typed_programs() {
    ok(
        "fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\n\
        var calls = 0; fn bump() { calls += 1; } print(fib(20)); bump(); print(calls);",
    );
    ok("let s = \"a\" + str(1) + str(1.5) + str([1]); print(len(s) == 3 && s < \"b\");");
    ok("var a: [int] = []; push(a, 1); let b = pop(a); a[0] = b; print(a);");
    ok("let m = [[0.0; 3]; 2]; m[1][2] += 1.5; print(m[1][2] % 2.0);");
    ok("print(abs(-1) + min(1, 2) + max(3, 4) + int(sqrt(float(4))) + (7 >> 1) ^ (1 << 3) | 5 & 3);");
    ok("print(min(1.0, 2.0) + abs(-1.0) + floor(1.5) + ceil(1.5) + sin(0.0) + cos(0.0) + tan(0.0) + exp(0.0) + log(1.0) + clock());");
    ok("assert(true); let len = 3; print(len([1, 2]) + len);");
    ok("fn f() -> void { return; } f();");
    ok("fn g(x: int) -> int { while true { if x > 0 { return 1; } } }");
    ok("fn h(x: int) -> int { if x > 0 { return 1; } else if x < 0 { return 2; } else { return 3; } }");
    ok("fn k() -> int { { return 1; } print(2); }");
    ok("fn p(x: int) -> int { let x = x + 1; return x; }");
    ok("let x = 1; { let x = x + 1; print(x); } for i in 0..3 { let i = i * 2; print(i); }");
}

#[test]
fn empty_array_context() {
    ok("let a: [[int]] = [[1], []]; var b = [[], [2.0]]; b = []; let c: [[str]] = [[]; 4];");
    ok("fn f(a: [int]) -> [int] { return []; } print(f([]));");
    ok("var a: [[int]] = []; push(a, []); a[0] = [];");
    err1(
        "print([]);",
        "cannot infer the type of an empty array literal",
    );
    err1("let x = [];", "cannot infer");
    err1("let x = [[]];", "cannot infer");
    err1("let x = [[]; 3];", "cannot infer");
    err1("print(len([]));", "cannot infer");
}

#[test]
fn type_errors() {
    err1(
        "let x = 1 + 1.5;",
        "mismatched types: expected `int`, found `float`",
    );
    err1(
        "let x: int = 1.5;",
        "mismatched types: expected `int`, found `float`",
    );
    err1("if 1 { }", "expected `bool`, found `int`");
    err1("while \"s\" { }", "expected `bool`");
    err1(
        "let b = true + true;",
        "operator `+` cannot be applied to type `bool`",
    );
    err1(
        "let b = 1.5 | 2.0;",
        "operator `|` cannot be applied to type `float`",
    );
    err1(
        "let b = [1] == [1];",
        "operator `==` cannot be applied to type `[int]`",
    );
    err1(
        "let b = true < false;",
        "operator `<` cannot be applied to type `bool`",
    );
    err1(
        "let b = \"a\" - \"b\";",
        "operator `-` cannot be applied to type `str`",
    );
    err1("let b = -true;", "unary operator `-`");
    err1("let b = !1;", "unary operator `!`");
    err1("let b = 1 && true;", "expected `bool`, found `int`");
    err1(
        "let s = \"abc\"; print(s[0]);",
        "cannot index into a value of type `str`",
    );
    err1(
        "let a = [1]; print(a[1.0]);",
        "expected `int`, found `float`",
    );
    err1("let a = [1, 2.0];", "expected `int`, found `float`");
    err1("let a = [1; 2.0];", "expected `int`, found `float`");
    err1("var a = [1]; a[0] = \"x\";", "expected `int`, found `str`");
    err1(
        "var s = \"x\"; s -= \"y\";",
        "operator `-` cannot be applied to type `str`",
    );
    err1("var x = 1; x += 1.0;", "expected `int`, found `float`");
    err1("for i in 0..1.5 { }", "expected `int`, found `float`");
}

#[test]
fn builtin_overloads() {
    err1("print(int(1));", "expected `float`, found `int`");
    err1("print(float(1.0));", "expected `int`, found `float`");
    err1(
        "print(len(1));",
        "`len` expects an array or a `str`, found `int`",
    );
    err1("print(min(1, 2.0));", "expected `int`, found `float`");
    err1(
        "print(max(\"a\", \"b\"));",
        "`max` expects an `int` or a `float`",
    );
    err1("print(abs(true));", "`abs` expects");
    err1(
        "var a = [1]; push(a, 1.0);",
        "expected `int`, found `float`",
    );
    err1("push(1, 1);", "`push` expects an array");
    err1("print(pop(\"s\"));", "`pop` expects an array");
    err1("assert(1);", "expected `bool`, found `int`");
    err1("print(sqrt(4));", "expected `float`, found `int`");
    err1(
        "print(1, 2);",
        "function `print` takes 1 argument but 2 were supplied",
    );
    err1(
        "print(clock(1));",
        "function `clock` takes 0 arguments but 1 was supplied",
    );
    err1(
        "fn f(a: int) { } f();",
        "function `f` takes 1 argument but 0 were supplied",
    );
    err1("fn f(a: int) { } f(1.0);", "expected `int`, found `float`");
}

#[test]
fn void_is_not_a_value() {
    for src in [
        "fn f() { } let x = f();",
        "fn f() { } print(f());",
        "fn f() { } fn g(x: int) { } g(f());",
        "fn f() { } let a = [f()];",
        "fn f() { } print(f() == f());",
        "fn f() { } var a = [1]; a[0] = f();",
        "fn f() { } print(str(f()));",
    ] {
        let d = errs(src);
        assert!(
            d.iter().any(|d| d.0.contains("`void` is not a value")),
            "{src}: {d:?}"
        );
    }
    err1("let x: void = 1;", "`void` is not a value type");
    err1("fn f(x: void) { }", "`void` is not a value type");
    err1("let x: [void] = [];", "arrays of `void`");
    err1(
        "fn f() { return 1; }",
        "function `f` has no result type but returns a value",
    );
    err1(
        "fn f() -> int { return; }",
        "mismatched types: expected `int`, found `void`",
    );
    ok("fn f() { } f();");
}

#[test]
fn names_and_scopes() {
    err1("print(x);", "undefined variable `x`");
    err1("print(nope(1));", "undefined function `nope`");
    err1("fn f() { } print(f);", "undefined variable `f`");
    err1(
        "let x = 1; let x = 2;",
        "`x` is already declared in this scope",
    );
    err1(
        "{ var y = 1; let y = 2; }",
        "`y` is already declared in this scope",
    );
    err1(
        "fn f(a: int, a: int) { }",
        "`a` is already declared in this scope",
    );
    err1("fn f() { } fn f() { }", "function `f` is already defined");
    err1(
        "fn print(x: int) { }",
        "cannot define a function named `print`",
    );
    err1("fn len() { }", "cannot define a function named `len`");
    err1("{ let z = z; }", "undefined variable `z`");
    err1("fn f() { let q = 1; } print(q);", "undefined variable `q`");
    err1("for i in 0..3 { } print(i);", "undefined variable `i`");
    // Globals are visible before their declaration, in functions and top-level code.
    ok("fn f() -> int { return g; } print(f()); print(g); let g = 5;");
    ok("fn f() { } let f = 1; print(f); f();");
}

#[test]
fn mutability() {
    err1(
        "let x = 1; x = 2;",
        "cannot assign to immutable binding `x`",
    );
    err1(
        "fn f(p: int) { p = 1; }",
        "cannot assign to immutable binding `p`",
    );
    err1(
        "for i in 0..3 { i += 1; }",
        "cannot assign to immutable binding `i`",
    );
    err1(
        "fn f() { x = 1; } let x = 0;",
        "cannot assign to immutable binding `x`",
    );
    ok("let a = [1]; a[0] = 2; fn f(b: [int]) { b[0] = 1; }");
}

#[test]
fn control_flow_placement_and_returns() {
    err1("break;", "`break` outside of a loop");
    err1("fn f() { continue; }", "`continue` outside of a loop");
    err1("return;", "`return` outside of a function");
    err1("{ return 1; }", "`return` outside of a function");
    let msg = "function `f` must return a value on every path";
    err1("fn f(x: int) -> int { if x > 0 { return 1; } }", msg);
    err1("fn f(x: int) -> int { for i in 0..x { return 1; } }", msg);
    err1("fn f(x: bool) -> int { while x { return 1; } }", msg);
    err1("fn f() -> int { while true { break; } }", msg);
    err1("fn f() -> int { }", msg);
    ok("fn f() -> int { while true { while true { break; } } }");
    ok("fn f() -> int { return 1; print(1); }");
    err1(
        "fn f() -> int { return 1.0; }",
        "expected `int`, found `float`",
    );
}

#[test]
fn global_inference() {
    ok("let a = b + 1; let b = f(); fn f() -> int { return a; }");
    ok("fn f() -> [int] { return xs; } var xs = [1, 2];");
    err1(
        "let a = b; let b = a;",
        "cannot infer the type of global `a`",
    );
    err1("let a = a + 1;", "cannot infer the type of global `a`");
    ok("let a: int = a + 1;");
    let t = ok("let x = 1.5; var y = [x];");
    assert_eq!(t.globals[0].ty, Type::Float);
    assert_eq!(t.globals[1].ty, Type::Float.array_of().unwrap());
    assert!(t.globals[1].mutable && !t.globals[0].mutable);
}

#[test]
fn several_errors_in_one_run() {
    let d = errs("let a: int = 1.5;\nprint(b);\nbreak;\nfn f() -> int { }\nlet c = 1; c = 2;\n");
    let lines: Vec<u32> = d.iter().map(|d| d.1).collect();
    assert_eq!(lines, vec![1, 2, 3, 4, 5], "{d:?}");
    assert_eq!((d[0].1, d[0].2), (1, 14));
    assert_eq!((d[1].1, d[1].2), (2, 7));
    assert_eq!((d[4].1, d[4].2), (5, 12));
}

#[test]
fn errors_do_not_cascade() {
    let d = errs("let a = undefined_thing; let b = a + 1; let c = b * 2; print(c[0] + len(c));");
    assert_eq!(d.len(), 1, "{d:?}");
}

#[test]
fn tables_are_complete() {
    let src = "fn f(a: int) -> int { let b = a * 2; return b; }\n\
               var g = f(1);\n{ let l = g; g = l; }\nfor i in 0..2 { print(i); }\nf(2);";
    let (m, t) = run(src, &Prelude::default(), false).unwrap();
    assert_eq!(t.expr_types.len(), m.expr_count as usize);
    assert_eq!(t.decls.len(), m.decl_count as usize);
    assert!(t.decls.iter().all(|d| d.is_some()));
    assert_eq!(t.funcs.len(), 1);
    assert_eq!(t.funcs[0].sig.params, vec![Type::Int]);
    assert_eq!(t.funcs[0].item, Some(0));
    assert_eq!(t.globals.len(), 1);
    assert_eq!(t.locals.len(), 4); // a, b, l, i
    assert!(!t.locals[0].mutable);
    // Every call resolved; every name resolved.
    let calls = t.calls.iter().filter(|c| c.is_some()).count();
    assert_eq!(calls, 3);
    assert!(t.calls.contains(&Some(Callee::Builtin(Builtin::Print))));
    let names = t.names.iter().filter(|c| c.is_some()).count();
    assert_eq!(names, 6); // a, b, g (init), g (target), l, i
    let Item::Stmt(s) = &m.items[4] else { panic!() };
    let StmtKind::Expr { expr, .. } = &s.kind else {
        panic!()
    };
    assert_eq!(t.ty(expr.id), Type::Int);
}

#[test]
fn repl_prelude_rules() {
    let sig = waddle_opt::ir::Signature {
        params: vec![Type::Int],
        ret: Type::Int,
    };
    let prelude = Prelude {
        functions: vec![("f".into(), sig)],
        host_functions: vec![],
        globals: vec![
            crate::PreludeGlobal {
                name: "x".into(),
                ty: Type::Int,
                mutable: false,
            },
            crate::PreludeGlobal {
                name: "y".into(),
                ty: Type::Int,
                mutable: true,
            },
        ],
    };
    // Prelude `let` globals stay immutable, `var` globals assignable.
    let d = run("x = 2;", &prelude, true).unwrap_err();
    assert!(d[0].0.contains("x"), "{d:?}");
    run("y = 2;", &prelude, true).unwrap();
    // Same signature: takes the prelude index.
    let (_, t) = run("fn f(a: int) -> int { return a + x; } f(1)", &prelude, true).unwrap();
    assert_eq!(t.funcs.len(), 1);
    assert_eq!(t.funcs[0].item, Some(0));
    // Different signature: error.
    let d = run("fn f(a: float) -> int { return 1; }", &prelude, true).unwrap_err();
    assert!(
        d[0].0
            .contains("cannot redefine `f` with a different signature"),
        "{d:?}"
    );
    // Outside the REPL it is a duplicate.
    let d = run("fn f(a: int) -> int { return a; }", &prelude, false).unwrap_err();
    assert!(d[0].0.contains("already defined"), "{d:?}");
    // Redeclaring a prelude global with the same type keeps the one global
    // (issue 13, defect 4); the initializer still reads the old value.
    let float_x = Prelude {
        functions: vec![],
        host_functions: vec![],
        globals: vec![crate::PreludeGlobal {
            name: "x".into(),
            ty: Type::Float,
            mutable: false,
        }],
    };
    let (m, t) = run("var x = x + 1.5; print(x); x = 2.0;", &float_x, true).unwrap();
    assert_eq!(t.globals.len(), 1);
    assert!(t.globals[0].mutable, "the redeclaration's `var` applies");
    let Item::Stmt(s) = &m.items[1] else { panic!() };
    let StmtKind::Expr { expr, .. } = &s.kind else {
        panic!()
    };
    let crate::ast::ExprKind::Call(call) = &expr.kind else {
        panic!()
    };
    let args = &call.args;
    assert_eq!(t.var(args[0].id), Var::Global(GlobalIdx(0)));
    let Item::Stmt(s) = &m.items[0] else { panic!() };
    let StmtKind::Let { init, .. } = &s.kind else {
        panic!()
    };
    let crate::ast::ExprKind::Binary { lhs, .. } = &init.kind else {
        panic!()
    };
    assert_eq!(t.var(lhs.id), Var::Global(GlobalIdx(0)));
    // With another type it is an error, written or inferred.
    let d = run("let x = x > 0.0;", &float_x, true).unwrap_err();
    assert!(d[0].0.contains("already has type `float`"), "{d:?}");
    let d = run("var x: int = 1;", &float_x, true).unwrap_err();
    assert!(d[0].0.contains("already has type `float`"), "{d:?}");
    // Twice in one entry is a duplicate, as in a file.
    let d = run("let x = 1.0; let x = 2.0;", &float_x, true).unwrap_err();
    assert!(d[0].0.contains("already declared"), "{d:?}");
    // A final bare expression of type void is fine in the REPL.
    run("fn g() { } g()", &Prelude::default(), true).unwrap();
}
