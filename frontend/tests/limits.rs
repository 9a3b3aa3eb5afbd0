//! Input limits (issue 13, defect 5): flat left-associative chains of any
//! length compile (parse, check, lower, drop) without recursing once per
//! operand, on a thread with an ordinary 2 MiB stack; real nesting and
//! oversized sources are compile errors.

use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap, MAX_SOURCE_BYTES};

fn compile_src(src: &str) -> Result<(), Vec<String>> {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("t.wdl", src));
    compile(&sources, &CompileOptions::default())
        .map(|_| ())
        .map_err(|d| d.into_iter().map(|d| d.message).collect())
}

/// Runs `f` on a thread with a 2 MiB stack (smaller than the main thread's).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow");
}

#[test]
fn flat_chains_of_100000_terms_compile() {
    on_small_stack(|| {
        let n = 100_000;
        let ints = vec!["one"; n].join(" + ");
        let mixed: Vec<String> = (0..n)
            .map(|i| ["x", "2", "x", "3"][i % 4].to_string())
            .collect();
        let mut arith = mixed[0].clone();
        for (i, t) in mixed.iter().enumerate().skip(1) {
            arith += [" - ", " + ", " * ", " ^ "][i % 4];
            arith += t;
        }
        let strs = vec!["\"\""; n].join(" + ");
        let ors = vec!["f()"; n].join(" || ");
        let ands = vec!["t"; n].join(" && ");
        let src = format!(
            "var one = 1;\nvar x = 7;\nvar t = true;\nfn f() -> bool {{ return false; }}\n\
             print({ints});\nprint({arith});\nprint(\"a\" + {strs});\nprint({ors});\nprint({ands});\n"
        );
        compile_src(&src).expect("compiles");
    });
}

#[test]
fn else_if_chains_of_20000_arms_compile() {
    // An `else if` chain is a list of arms, not nesting: it was once
    // rejected past ~250 arms as "nested too deeply".
    on_small_stack(|| {
        let n = 20_000;
        let mut src = String::from("fn f(x: int) -> int {\n    if x == 0 { return 0; }");
        for i in 1..n {
            src += &format!(" else if x == {i} {{ return {i}; }}");
        }
        src += " else { return -1; }\n}\nprint(f(7));\n";
        compile_src(&src).expect("compiles");
        // Without a final `else` the function may fall off its end.
        let open = src.replace(" else { return -1; }", "");
        let errors = compile_src(&open).expect_err("missing return");
        assert!(errors.iter().any(|m| m.contains("return")), "{errors:?}");
    });
}

#[test]
fn nesting_is_still_limited() {
    on_small_stack(|| {
        let src = format!("print(1 + {}1{});", "(".repeat(1000), ")".repeat(1000));
        let errors = compile_src(&src).expect_err("too deep");
        assert!(
            errors.iter().any(|m| m.contains("nested too deeply")),
            "{errors:?}"
        );
        // Nesting inside an `else if` arm counts from the chain's depth.
        let src = format!(
            "var x = 1;\nif x == 0 {{ }} else if x == 1 {{ {}x = 2;{} }}\n",
            "{".repeat(1000),
            "}".repeat(1000)
        );
        let errors = compile_src(&src).expect_err("too deep");
        assert!(
            errors.iter().any(|m| m.contains("nested too deeply")),
            "{errors:?}"
        );
    });
}

#[test]
fn oversized_source_is_a_compile_error() {
    let mut src = "print(1);\n".to_string();
    src.push_str(&" ".repeat(MAX_SOURCE_BYTES));
    let errors = compile_src(&src).expect_err("too large");
    assert!(
        errors
            .iter()
            .any(|m| m.contains("source file is too large")),
        "{errors:?}"
    );
    // At the limit exactly is fine.
    src.truncate(MAX_SOURCE_BYTES);
    compile_src(&src).expect("at the limit");
}
