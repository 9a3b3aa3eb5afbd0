//! Parser unit tests.

use super::*;
use crate::ast::{BinOp, ExprKind, Item, Stmt, StmtKind};
use crate::SourceFile;

fn parse_str(src: &str, repl: bool) -> Result<Module, Vec<Diagnostic>> {
    let mut sm = SourceMap::default();
    sm.add(SourceFile::new("t.wdl", src));
    parse(&sm, repl)
}

fn ok(src: &str) -> Module {
    match parse_str(src, false) {
        Ok(m) => m,
        Err(d) => panic!("{src}: {d:?}"),
    }
}

fn errs(src: &str) -> Vec<Diagnostic> {
    match parse_str(src, false) {
        Ok(_) => panic!("{src} should not parse"),
        Err(d) => d,
    }
}

fn first_stmt(m: &Module) -> &Stmt {
    match &m.items[0] {
        Item::Stmt(s) => s,
        Item::Fn(_) | Item::Extern(_) => panic!("expected a statement"),
    }
}

fn expr_of(src: &str) -> crate::ast::Expr {
    let m = ok(&format!("{src};"));
    match &first_stmt(&m).kind {
        StmtKind::Expr { expr, .. } => expr.clone(),
        k => panic!("{k:?}"),
    }
}

/// Renders an expression fully parenthesized.
fn show(e: &crate::ast::Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Name(i) => i.name.to_string(),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            format!(
                "({} {} {})",
                show(lhs),
                crate::check::expr_op_text(*op),
                show(rhs)
            )
        }
        ExprKind::Unary { op, operand } => format!("({op:?} {})", show(operand)),
        ExprKind::Call(call) => {
            let crate::ast::Call { callee, args } = &**call;
            let a: Vec<String> = args.iter().map(show).collect();
            format!("{}({})", callee.name, a.join(", "))
        }
        ExprKind::Index { base, index, .. } => format!("{}[{}]", show(base), show(index)),
        k => format!("{k:?}"),
    }
}

#[test]
fn items_trailing_commas_and_empty_statements() {
    let m = ok("fn f(a: int, b: [float],) -> int { return a; }\nlet x = f(1, [1.0,],);\n;");
    assert_eq!(m.items.len(), 3);
    let Item::Fn(f) = &m.items[0] else { panic!() };
    assert_eq!(f.params.len(), 2);
    assert!(matches!(first_stmt(&ok(";")).kind, StmtKind::Empty));
}

#[test]
fn precedence_table() {
    assert_eq!(show(&expr_of("1 + 2 * 3")), "(1 + (2 * 3))");
    assert_eq!(show(&expr_of("1 - 2 - 3")), "((1 - 2) - 3)");
    assert_eq!(show(&expr_of("a || b && c")), "(a || (b && c))");
    assert_eq!(show(&expr_of("a == b | c")), "(a == (b | c))");
    assert_eq!(show(&expr_of("a | b ^ c & d")), "(a | (b ^ (c & d)))");
    assert_eq!(show(&expr_of("a & b << c + d")), "(a & (b << (c + d)))");
    assert_eq!(show(&expr_of("-a * !b")), "((Neg a) * (Not b))");
    assert_eq!(show(&expr_of("-f(x)[i]")), "(Neg f(x)[i])");
    assert_eq!(show(&expr_of("(a < b) == c")), "((a < b) == c)");
    assert_eq!(show(&expr_of("a < b && b < c")), "((a < b) && (b < c))");
    assert_eq!(show(&expr_of("int(x) + float(y)")), "(int(x) + float(y))");
}

#[test]
fn comparisons_do_not_chain() {
    for src in ["a < b < c;", "a == b == c;", "a < b == c;", "a >= b != c;"] {
        let d = errs(src);
        assert_eq!(d.len(), 1, "{src}: {d:?}");
        assert_eq!(d[0].message, "comparison operators cannot be chained");
    }
}

#[test]
fn statements() {
    let m = ok("if a { } else if b { } else { }\nwhile x { break; continue; }\nfor i in 0..n { }\n{ var y: [[int]] = [[0; 3]; 2]; y[0][1] += 1; }\nreturn;");
    assert_eq!(m.items.len(), 5);
    let StmtKind::If {
        else_ifs,
        else_block,
        ..
    } = &first_stmt(&m).kind
    else {
        panic!()
    };
    assert_eq!(else_ifs.len(), 1);
    assert!(else_block.is_some());
    let m = ok("x = 1; a[i] = 2; s += \"x\"; n <<= 2;");
    assert!(matches!(
        first_stmt(&m).kind,
        StmtKind::Assign { op: None, .. }
    ));
    let Item::Stmt(s) = &m.items[3] else { panic!() };
    assert!(matches!(
        s.kind,
        StmtKind::Assign {
            op: Some(BinOp::Shl),
            ..
        }
    ));
}

#[test]
fn array_literals() {
    let e = expr_of("[1, 2, 3,]");
    assert!(matches!(&e.kind, ExprKind::ArrayLit(v) if v.len() == 3));
    assert!(matches!(expr_of("[]").kind, ExprKind::ArrayLit(ref v) if v.is_empty()));
    assert!(matches!(
        expr_of("[0; n]").kind,
        ExprKind::ArrayRepeat { .. }
    ));
}

#[test]
fn ids_are_dense_across_files() {
    let mut sm = SourceMap::default();
    sm.add(SourceFile::new(
        "a.wdl",
        "let x = 1 + 2;\nfn f(p: int) { for i in 0..p { } }",
    ));
    sm.add(SourceFile::new("b.wdl", "var y = [x, x];"));
    let m = parse(&sm, false).unwrap();
    assert_eq!(m.expr_count, 3 + 2 + 3);
    assert_eq!(m.decl_count, 4);
    let Item::Stmt(s) = &m.items[2] else { panic!() };
    assert_eq!(s.span.file, FileId(1));
    let mut seen = vec![false; m.expr_count as usize];
    fn walk(e: &crate::ast::Expr, seen: &mut Vec<bool>) {
        assert!(!seen[e.id.0 as usize], "duplicate id");
        seen[e.id.0 as usize] = true;
        match &e.kind {
            ExprKind::Binary { lhs, rhs, .. } => {
                walk(lhs, seen);
                walk(rhs, seen);
            }
            ExprKind::ArrayLit(v) => v.iter().for_each(|x| walk(x, seen)),
            _ => {}
        }
    }
    for it in &m.items {
        if let Item::Stmt(Stmt {
            kind: StmtKind::Let { init, .. },
            ..
        }) = it
        {
            walk(init, &mut seen);
        }
    }
}

#[test]
fn syntax_errors_recover() {
    let d = errs("let x = ;\nlet y = 1 +;\nlet z = 3\nfoo(;\n");
    assert!(d.len() >= 3, "{d:?}");
    assert!(d[0].message.contains("expected an expression"), "{d:?}");
    let d = errs("1 + 2 = 3;\nf() = 1;");
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(d.iter().all(|d| d.message == "invalid assignment target"));
    let d = errs("fn f() { fn g() { } }");
    assert!(d[0].message.contains("top level"), "{d:?}");
    let d = errs("}");
    assert_eq!(d.len(), 1);
    let d = errs("fn f() {");
    assert!(d[0].message.contains("unclosed"), "{d:?}");
}

#[test]
fn missing_semicolon_and_repl_tail() {
    let d = errs("let x = 1\nlet y = 2;");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, "expected `;`, found keyword `let`");
    assert_eq!(d[0].span.start, 10);
    assert!(parse_str("1 + 2", false).is_err());
    let m = parse_str("let a = 1; a + 2", true).unwrap();
    let Item::Stmt(s) = &m.items[1] else { panic!() };
    assert!(matches!(s.kind, StmtKind::Expr { semi: false, .. }));
    // Only the final statement may omit `;`.
    assert!(parse_str("1 2", true).is_err());
    // At the prompt a final `let`/`var` or assignment may omit it too, but
    // not outside the REPL or before another statement.
    assert!(parse_str("let x = 1", true).is_ok());
    assert!(parse_str("var x = 1; x = 2", true).is_ok());
    assert!(parse_str("x += 2", true).is_ok());
    assert!(parse_str("let x = 1", false).is_err());
    assert!(parse_str("let x = 1 let y = 2", true).is_err());
    assert!(parse_str("fn f() { let x = 1 }", true).is_err());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "(".repeat(100_000);
    let d = errs(&format!("let x = {deep};"));
    assert!(d.iter().any(|d| d.message.contains("nested too deeply")));
    let d = errs(&format!("{}{}", "{".repeat(50_000), "}".repeat(50_000)));
    assert!(d.iter().any(|d| d.message.contains("nested too deeply")));
    // A flat chain is not nesting (issue 13, defect 5).
    let long = vec!["1"; 50_000].join(" + ");
    ok(&format!("let x = {long};"));
    // Real nesting inside a chain still counts.
    let d = errs(&format!(
        "let x = 1 + {}1{};",
        "(".repeat(300),
        ")".repeat(300)
    ));
    assert!(d.iter().any(|d| d.message.contains("nested too deeply")));
    let neg = "-".repeat(50_000);
    assert!(!errs(&format!("let x = {neg}1;")).is_empty());
    let idx = "[0]".repeat(50_000);
    assert!(!errs(&format!("let x = a{idx};")).is_empty());
    let ty = "[".repeat(50_000);
    assert!(!errs(&format!("let x: {ty}int = 1;")).is_empty());
    // An `else if` chain is a list, not nesting.
    let elifs = "if a { } else ".repeat(5_000);
    ok(&format!("{elifs}{{ }}"));
    // Moderate nesting is fine.
    ok(&format!("let x = {}1{};", "(".repeat(100), ")".repeat(100)));
}

#[test]
fn extern_items() {
    let src = "extern \"libm.so.6\" fn ldexp(x: float, e: int) -> float;\nextern \"l\" fn beep();\nlet extern = 1;";
    let m = ok(src);
    let Item::Extern(x) = &m.items[0] else {
        panic!()
    };
    assert_eq!(x.lib, "libm.so.6");
    assert_eq!(x.name.name, "ldexp");
    assert_eq!(x.params.len(), 2);
    assert!(x.ret.is_some());
    let Item::Extern(y) = &m.items[1] else {
        panic!()
    };
    assert!(y.ret.is_none() && y.params.is_empty());
    assert!(matches!(&m.items[2], Item::Stmt(_)));
}

#[test]
fn blocks_hold_no_unused_capacity() {
    // Generated programs have a million one-statement arms; a vector's
    // first push reserves room for four statements.
    let m = ok("var x = 1; if x > 0 { x = x - 1; } else { x = x + 1; x = 2; }");
    let Item::Stmt(s) = &m.items[1] else {
        panic!("expected a statement")
    };
    let StmtKind::If {
        then_block,
        else_block: Some(else_block),
        ..
    } = &s.kind
    else {
        panic!("{:?}", s.kind)
    };
    assert_eq!(then_block.stmts.capacity(), 1);
    assert_eq!(else_block.stmts.capacity(), 2);
}

#[test]
fn the_token_window_stays_bounded_and_diagnostics_keep_their_order() {
    // Far more tokens than one window.
    let mut src = String::from("fn main() {\n    let v0 = 1;\n");
    for i in 1..20_000 {
        src += &format!("    let v{i} = v{} * 3 + {i};\n", i - 1);
    }
    src += "}\n";
    let mut sm = SourceMap::default();
    sm.add(SourceFile::new("t.wdl", &src));
    let file = &sm.files[0];
    let mut diags = Vec::new();
    let mut p = Parser::new(&file.text, FileId(0), &mut diags, (0, 0), false);
    let mut items = Vec::new();
    p.items(&mut items);
    assert!(p.toks.capacity() <= 2 * WINDOW, "{}", p.toks.capacity());
    assert!(p.base > 100_000, "{}", p.base);
    assert!(diags.is_empty(), "{diags:?}");
    // A syntax error early and a lexical error late: the lexical one is
    // reported first, as when the whole file was lexed before parsing.
    let bad = format!("let x = ;\n{src}let s = \"open");
    let d = errs(&bad);
    assert!(d.len() >= 2, "{d:?}");
    assert!(d[0].message.contains("unterminated"), "{d:?}");
}
