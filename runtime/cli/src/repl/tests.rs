use super::*;

fn repl() -> Repl {
    Repl::new(Config::new().tier(Tier::Interp), OutputSink::Capture).unwrap()
}

fn ok(r: &mut Repl, line: &str) -> String {
    let out = r.handle_line(line);
    assert_eq!(out.stderr, "", "line {line:?}");
    assert!(!out.pending, "line {line:?} left the entry open");
    out.stdout
}

#[test]
fn multi_line_entries() {
    let mut r = repl();
    assert!(r.handle_line("fn double(x: int) -> int {").pending);
    assert_eq!(r.prompt(), CONTINUE_PROMPT);
    assert!(r.handle_line("    // a comment with a brace {").pending);
    assert!(r.handle_line("    return x * 2;").pending);
    assert_eq!(ok(&mut r, "}"), "");
    assert_eq!(r.prompt(), PROMPT);
    assert_eq!(ok(&mut r, "double(21)"), "42\n");
    assert!(r.handle_line("print(\"two").pending);
    assert_eq!(ok(&mut r, "lines\");"), "two\nlines\n");
}

#[test]
fn persistence_and_bare_expressions() {
    let mut r = repl();
    ok(&mut r, "var n = 1;");
    ok(&mut r, "n = n + 1;");
    assert_eq!(ok(&mut r, "n"), "2\n");
    assert_eq!(ok(&mut r, "[n, n]"), "[2, 2]\n");
    assert_eq!(ok(&mut r, "print(n);"), "2\n");
    let globals = ok(&mut r, ":globals");
    assert!(globals.contains("n: int = 2"), "{globals}");
}

#[test]
fn redefinition() {
    let mut r = repl();
    ok(&mut r, "fn f() -> str { return \"old\"; }");
    ok(&mut r, "fn g() -> str { return f() + \"!\"; }");
    assert_eq!(ok(&mut r, "g()"), "old!\n");
    ok(&mut r, "fn f() -> str { return \"new\"; }");
    assert_eq!(ok(&mut r, "g()"), "new!\n");
}

#[test]
fn errors_do_not_end_the_session() {
    let mut r = repl();
    let out = r.handle_line("print(1); let z = 0; print(1 / z);");
    assert_eq!(out.stdout, "1\n");
    assert!(
        out.stderr
            .starts_with("error: runtime error: division by zero\n  --> <repl:1>:1:"),
        "{}",
        out.stderr
    );
    assert!(!out.quit);
    let out = r.handle_line("let = 3;");
    assert!(out.stderr.starts_with("error"), "{}", out.stderr);
    assert_eq!(ok(&mut r, "1 + 1"), "2\n");
    let out = r.handle_line(":bogus");
    assert!(out.stderr.contains("unknown command"), "{}", out.stderr);
    assert_eq!(ok(&mut r, "3"), "3\n");
}

#[test]
fn commands() {
    let mut r = repl();
    assert!(ok(&mut r, ":help").contains(":ir NAME"));
    ok(&mut r, "fn sq(x: int) -> int { return x * x; }");
    assert!(ok(&mut r, ":ir sq").contains("sq"));
    assert!(ok(&mut r, ":opt sq").contains("sq"));
    let dot = ok(&mut r, ":vsdg sq");
    assert!(dot.starts_with("digraph \"sq\""), "{dot}");
    assert!(
        dot.contains("imul") && dot.contains("subgraph cluster_"),
        "{dot}"
    );
    assert_eq!(
        ok(&mut r, ":asm sq"),
        "no native code: sq runs on the interpreter (tier interp)\n"
    );
    assert_eq!(
        ok(&mut r, ":tier sq"),
        "sq runs on tier interp (calls left before promotion: -, loop back edges left: -)\n"
    );
    assert_eq!(ok(&mut r, ":tier"), "tier for new code: interp\n");
    assert!(ok(&mut r, ":funcs").contains("fn sq(int) -> int"));
    assert!(r
        .handle_line(":ir nope")
        .stderr
        .contains("no function named `nope`"));
    assert_eq!(ok(&mut r, ":set-tier full"), "tier set to full\n");
    assert!(!r.handle_line(":set-tier nosuch").stderr.is_empty());
    assert_eq!(ok(&mut r, ":set-tier auto"), "tier set to auto\n");
    // `auto` counts: one call so far, promotion after 1000.
    ok(&mut r, "print(sq(3));");
    assert_eq!(
        ok(&mut r, ":tier sq"),
        "sq runs on tier interp (calls left before promotion: 999, loop back edges left: -)\n"
    );
    assert_eq!(ok(&mut r, ":set-tier opt"), "tier set to opt\n");
    // The next entry compiles every function with T2.
    ok(&mut r, "print(sq(3));");
    assert!(ok(&mut r, ":tier sq").starts_with("sq runs on tier opt"));
    let asm = ok(&mut r, ":asm sq");
    assert!(asm.starts_with("sq: "), "{asm}");
    assert!(asm.contains("machine code (opt tier)"), "{asm}");
    assert!(asm.lines().count() > 3, "{asm}");
    if cfg!(target_arch = "x86_64") {
        assert!(asm.contains("ret"), "{asm}");
        assert!(asm.contains("imul"), "{asm}");
    }
    assert!(ok(&mut r, ":funcs").contains("[opt]"));
    assert_eq!(ok(&mut r, ":set-tier interp"), "tier set to interp\n");
    ok(&mut r, "print(sq(4));");
    assert!(ok(&mut r, ":tier sq").starts_with("sq runs on tier interp"));
    assert!(r.handle_line(":ir").stderr.contains("needs an argument"));
    assert!(r.handle_line(":quit").quit);
    assert!(r.handle_line(":q").quit);
}

/// Issue 13, defect 4: a line that cannot continue an open entry gives it
/// up with a diagnostic instead of swallowing the rest of the session.
#[test]
fn unclosed_paren_gives_up_on_a_blank_line_or_a_command() {
    let mut r = repl();
    assert!(r.handle_line("print((1 + 2").pending);
    let out = r.handle_line("");
    assert!(!out.pending);
    assert!(out.stderr.starts_with("error"), "{}", out.stderr);
    assert!(
        out.stderr.contains("unfinished entry <repl:1> discarded"),
        "{}",
        out.stderr
    );
    assert_eq!(ok(&mut r, "1 + 1"), "2\n");
    assert!(r.handle_line("let a = [1,").pending);
    let out = r.handle_line(":quit");
    assert!(out.quit, "the command still runs");
    assert!(
        out.stderr.contains("discarded at a `:` command"),
        "{}",
        out.stderr
    );
    // A blank line inside braces or a string continues the entry.
    let mut r = repl();
    assert!(r.handle_line("fn f() -> int {").pending);
    assert!(r.handle_line("").pending);
    assert_eq!(ok(&mut r, "return 4; }"), "");
    assert!(r.handle_line("print(\"a").pending);
    assert!(r.handle_line("").pending);
    assert!(r.handle_line(":not a command").pending);
    assert_eq!(ok(&mut r, "b\");"), "a\n\n:not a command\nb\n");
    assert_eq!(ok(&mut r, "f()"), "4\n");
}

/// An entry still open at the end of input is reported, not dropped.
#[test]
fn unfinished_entry_at_end_of_input_is_reported() {
    let mut r = repl();
    assert!(r.finish().stderr.is_empty());
    assert!(r.handle_line("fn f() {").pending);
    let out = r.finish();
    assert!(
        out.stderr.contains("discarded at the end of input"),
        "{}",
        out.stderr
    );
    assert!(!r.is_pending());
}

/// Redeclaring a global with the same type keeps the one variable, so
/// functions defined earlier see the new value; another type is an error.
#[test]
fn redeclared_global_stays_one_variable() {
    let mut r = repl();
    ok(&mut r, "var n = 1;");
    ok(&mut r, "fn get() -> int { return n; }");
    ok(&mut r, "fn bump() { n += 10; }");
    ok(&mut r, "var n = n + 4;");
    assert_eq!(ok(&mut r, "get()"), "5\n");
    ok(&mut r, "bump();");
    assert_eq!(ok(&mut r, "n"), "15\n");
    let out = r.handle_line("let n = \"text\";");
    assert!(
        out.stderr.contains("already has type `int`"),
        "{}",
        out.stderr
    );
    assert_eq!(ok(&mut r, "get()"), "15\n");
    // `let` applies from now on: later entries cannot assign it.
    ok(&mut r, "let n = 7;");
    assert!(r.handle_line("n = 8;").stderr.starts_with("error"));
    assert_eq!(ok(&mut r, "get()"), "7\n");
    let globals = ok(&mut r, ":globals");
    assert_eq!(globals.matches("n: int").count(), 1, "{globals}");
}

#[test]
fn funcs_lists_host_functions() {
    let mut r = repl();
    (r.engine())
        .register_fn("twice", |s: &str| format!("{s}{s}"))
        .unwrap();
    // Listed before any entry has seen it.
    assert!(ok(&mut r, ":funcs").contains("fn twice(str) -> str    [host]\n"));
    r.engine().register_fn("beep", || ()).unwrap();
    assert_eq!(ok(&mut r, "twice(\"ab\")"), "abab\n");
    let funcs = ok(&mut r, ":funcs");
    assert!(
        funcs.contains("fn twice(str) -> str    [host]\n"),
        "{funcs}"
    );
    assert!(funcs.contains("fn beep()    [host]\n"), "{funcs}");
}
