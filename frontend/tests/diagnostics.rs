//! Every error class is reported with its message and `file:line:col`, in
//! the rendered form users see; several independent errors in one run.

use waddle_frontend::{check, diag, parse_only, Prelude, SourceFile, SourceMap};

/// Parses and checks `src` as `prog.wdl`; returns the rendered diagnostics
/// (empty when the program is fine).
fn diagnose(src: &str) -> String {
    let mut sm = SourceMap::default();
    sm.add(SourceFile::new("prog.wdl", src));
    let d = match parse_only(&sm, false) {
        Ok(m) => match check::check(&m, &Prelude::default(), false) {
            Ok(_) => return String::new(),
            Err(d) => d,
        },
        Err(d) => d,
    };
    diag::render(&d, &sm)
}

#[track_caller]
fn expect(src: &str, msg: &str, loc: &str) {
    let out = diagnose(src);
    assert!(out.starts_with("error"), "{src}:\n{out}");
    assert!(out.contains(msg), "{src}: want {msg:?}\n{out}");
    assert!(
        out.contains(&format!("prog.wdl:{loc}")),
        "{src}: want {loc}\n{out}"
    );
    assert!(out.contains('^'), "caret missing:\n{out}");
    assert_eq!(
        out.matches("\nerror").count(),
        0,
        "one error expected:\n{out}"
    );
}

#[test]
fn lexical_errors() {
    expect(
        "let x = 9223372036854775808;",
        "integer literal is too large",
        "1:9",
    );
    expect(
        "let x = -9223372036854775808;",
        "integer literal is too large",
        "1:10",
    );
    expect(
        "let x = 0x8000000000000000;",
        "integer literal is too large",
        "1:9",
    );
    expect("let x = 1_;", "`_` in a numeric literal", "1:9");
    expect("let x = 0x_1;", "`_` in a numeric literal", "1:9");
    expect("let x = 12abc;", "invalid suffix `abc`", "1:9");
    expect("let x = 1.;", "digit after `.`", "1:9");
    expect("let x = .5;", "digit before `.`", "1:9");
    expect(
        "let s = \"a\\qb\";",
        "unknown escape sequence `\\q`",
        "1:11",
    );
    expect(
        "let s = 1;\nlet t = \"abc;",
        "unterminated string literal",
        "2:9",
    );
    expect("/* /* */ let x = 1;", "unterminated block comment", "1:1");
    expect(
        "let x = 1; @\nprint(x);",
        "unexpected character `@`",
        "1:12",
    );
}

#[test]
fn syntax_errors() {
    expect(
        "let b = 1 < 2 < 3;",
        "comparison operators cannot be chained",
        "1:15",
    );
    expect(
        "let b = 1 == 1 == true;",
        "comparison operators cannot be chained",
        "1:16",
    );
    expect("let x = 1\nprint(x);", "expected `;`", "2:1");
    expect("1 + 2 = 3;", "invalid assignment target", "1:1");
    expect("let = 3;", "expected a variable name", "1:5");
    expect("if true { print(1); ", "unclosed `{`", "1:9");
    expect(
        "fn f() { fn g() { } }",
        "functions may only be declared at the top level",
        "1:10",
    );
    expect("let x: map = 1;", "expected a type", "1:8");
    expect(
        &format!("let x = {}1;", "(".repeat(1000)),
        "nested too deeply",
        "1:",
    );
}

#[test]
fn type_and_name_errors() {
    expect(
        "let x = 1;\nlet y = x + 1.5;",
        "mismatched types: expected `int`, found `float`",
        "2:13",
    );
    expect("print(y);", "undefined variable `y`", "1:7");
    expect("print(g());", "undefined function `g`", "1:7");
    expect(
        "let x = 1;\nx = 2;",
        "cannot assign to immutable binding `x`",
        "2:1",
    );
    expect(
        "fn f(p: int) {\n    p += 1;\n}",
        "cannot assign to immutable binding `p`",
        "2:5",
    );
    expect(
        "fn f(n: int) -> int {\n    if n > 0 { return 1; }\n}",
        "function `f` must return a value on every path",
        "1:4",
    );
    expect("while true { }\nbreak;", "`break` outside of a loop", "2:1");
    expect("continue;", "`continue` outside of a loop", "1:1");
    expect("return 1;", "`return` outside of a function", "1:1");
    expect(
        "print([]);",
        "cannot infer the type of an empty array literal",
        "1:7",
    );
    expect("fn f() { }\nlet v = f();", "`void` is not a value", "2:9");
    expect(
        "print(int(3));",
        "mismatched types: expected `float`, found `int`",
        "1:11",
    );
    expect(
        "print(float(3.0));",
        "mismatched types: expected `int`, found `float`",
        "1:13",
    );
    expect(
        "print(min(1, 2.0));",
        "mismatched types: expected `int`, found `float`",
        "1:14",
    );
    expect(
        "fn print(x: int) { }",
        "cannot define a function named `print`",
        "1:4",
    );
    expect(
        "fn f() { }\nfn f() { }",
        "function `f` is already defined",
        "2:4",
    );
    expect(
        "let a = 1;\nlet a = 2;",
        "`a` is already declared in this scope",
        "2:5",
    );
    expect(
        "let a = b;\nlet b = a;",
        "cannot infer the type of global",
        "2:9",
    );
    expect(
        "let s = \"abc\";\nprint(s[0]);",
        "cannot index into a value of type `str`",
        "2:7",
    );
    expect(
        "let b = true + false;",
        "operator `+` cannot be applied to type `bool`",
        "1:14",
    );
    expect(
        "if 1 { }",
        "mismatched types: expected `bool`, found `int`",
        "1:4",
    );
}

#[test]
fn several_independent_errors_in_one_run() {
    // Syntax errors: each statement is resynchronized.
    let out = diagnose("let a = ;\nlet b = 1 < 2 < 3;\nlet c = 5\nprint(c);\nlet d = (1 + ;\n");
    for loc in [
        "prog.wdl:1:9",
        "prog.wdl:2:15",
        "prog.wdl:4:1",
        "prog.wdl:5:14",
    ] {
        assert!(out.contains(loc), "{loc}:\n{out}");
    }
    assert_eq!(out.matches("error:").count(), 4, "{out}");
    // Lexical errors are reported together with syntax errors.
    let out = diagnose("let a = 12abc;\nlet b = ;\nlet c = \"\\q\";");
    assert_eq!(out.matches("error:").count(), 3, "{out}");
    // Type errors.
    let out = diagnose(
        "let a: int = 1.5;\nprint(nope);\nfn f() -> int { }\nlet k = 1;\nk = 2;\nbreak;\n",
    );
    for loc in [
        "prog.wdl:1:14",
        "prog.wdl:2:7",
        "prog.wdl:3:4",
        "prog.wdl:5:1",
        "prog.wdl:6:1",
    ] {
        assert!(out.contains(loc), "{loc}:\n{out}");
    }
    assert_eq!(out.matches("error:").count(), 5, "{out}");
}

#[test]
fn valid_program_has_no_diagnostics() {
    assert_eq!(
        diagnose("\u{feff}fn main_like() -> int { return 0; }\nprint(main_like());\n"),
        ""
    );
}
