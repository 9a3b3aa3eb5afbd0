//! The `waddle` binary: arguments, exit codes, stdout/stderr separation.

use std::path::PathBuf;
use std::process::{Command, Output};

fn waddle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_waddle"))
        .args(args)
        .output()
        .expect("run waddle")
}

fn program(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("waddle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_and_version() {
    let out = waddle(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("run"));
    let out = waddle(&["run", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for flag in [
        "--tier",
        "-O",
        "--passes",
        "--emit",
        "--fuel",
        "--time-passes",
        "--print-after",
        "--validate",
    ] {
        assert!(help.contains(flag), "{flag} missing from {help}");
    }
    let out = waddle(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("waddle "));
}

#[test]
fn bad_invocations_exit_1() {
    let out = waddle(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    let out = waddle(&["run", "--tier", "warp", "x.wdl"]);
    assert_eq!(out.status.code(), Some(1));
    let out = waddle(&["run", "-O7", "x.wdl"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn unreadable_file_is_a_clear_error() {
    let out = waddle(&["run", "/nonexistent/dir/prog.wdl"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error: cannot read `/nonexistent/dir/prog.wdl`"),
        "{err}"
    );
    let bad = program("latin1.wdl", "");
    std::fs::write(&bad, [b'p', 0xff, 0xfe]).unwrap();
    let out = waddle(&["run", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not valid UTF-8"));
}

/// A source larger than the 64 MiB limit is refused after reading just past
/// the limit: `/dev/zero` ends at once instead of growing without bound
/// (issue 13, defect 5).
#[test]
fn endless_source_is_refused() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let out = waddle(&["run", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("source size limit of 64 MiB"), "{err}");
}

#[test]
fn every_tier_runs_or_exits_1() {
    let p = program("tier.wdl", "print(1);\n");
    for tier in ["interp", "baseline", "opt", "full", "auto"] {
        let out = waddle(&["run", "--tier", tier, p.to_str().unwrap()]);
        let available: Vec<&str> = waddle::Tier::available()
            .into_iter()
            .map(waddle::Tier::name)
            .collect();
        if available.contains(&tier) {
            assert_eq!(out.status.code(), Some(0), "{tier}");
            assert_eq!(text(&out.stdout), "1\n", "{tier}");
            continue;
        }
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            text(&out.stderr),
            format!(
                "error: tier `{tier}` is not available in this build (available: {})\n",
                available.join(", ")
            )
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn runs_programs() {
    let p = program(
        "ok.wdl",
        "fn sq(x: int) -> int { return x * x; }\nprint(sq(7));\nprint(0.1 + 0.2);\n",
    );
    for tier in ["interp", "opt", "auto"] {
        for o in ["-O0", "-O1", "-O2"] {
            let out = waddle(&["run", "--tier", tier, o, p.to_str().unwrap()]);
            assert_eq!(text(&out.stderr), "", "{tier} {o}");
            assert_eq!(out.status.code(), Some(0));
            assert_eq!(text(&out.stdout), "49\n0.30000000000000004\n");
        }
    }
}

/// `--tier-thresholds CALLS,LOOPS,FULL` with `--jit-sync`: `--trace-tiers`
/// shows each function's T0 -> T2 and T2 -> T3 promotions, in a fixed
/// order; bad thresholds are a usage error.
#[test]
fn trace_tiers_shows_promotions_to_t3() {
    let p = program(
        "t3.wdl",
        "fn sq(x: int) -> int { return x * x; }
         var t = 0;
for i in 0..50 { t += sq(i); }
print(t);
",
    );
    let path = p.to_str().unwrap();
    let args = [
        "run",
        "-O0",
        "--tier-thresholds",
        "3,5,4",
        "--jit-sync",
        "--trace-tiers",
        path,
    ];
    let out = waddle(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "40425\n");
    let moves: Vec<String> = text(&out.stderr)
        .lines()
        .map(|l| l.split(", compiled").next().unwrap().to_string())
        .collect();
    if waddle::Tier::Full.is_available() {
        assert_eq!(
            moves,
            [
                "tier: sq interp -> opt (calls)",
                "tier: .main interp -> opt (osr)",
                "tier: sq opt -> full (calls)",
            ],
            "{}",
            text(&out.stderr)
        );
    }
    // FULL = 0: no T3.
    let out = waddle(&[
        "run",
        "-O0",
        "--tier-thresholds",
        "3,5,0",
        "--jit-sync",
        "--trace-tiers",
        path,
    ]);
    assert_eq!(text(&out.stdout), "40425\n");
    assert!(
        !text(&out.stderr).contains("-> full"),
        "{}",
        text(&out.stderr)
    );
    for bad in ["3", "0,1,1", "1,2,3,4", "1,2,x"] {
        let out = waddle(&["run", "--tier-thresholds", bad, path]);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(text(&out.stderr).contains("tier thresholds"), "{bad}");
    }
}

#[test]
fn runtime_error_prints_the_script_stack_trace_on_every_tier() {
    let p = program(
        "st.wdl",
        "fn down(n: int, a: [int]) -> int {\n    if n == 0 { return a[n - 1]; }\n    return down(n - 1, a) + 1;\n}\nprint(down(2, [1]));\n",
    );
    let name = p.display();
    let want = format!(
        "error: runtime error: index out of bounds\n  --> {name}:2:25\nstack trace:\n  \
         0: down at {name}:2:25\n  1: down at {name}:3:12\n  2: down at {name}:3:12\n  \
         3: <main> at {name}:5:7\n"
    );
    for tier in ["interp", "baseline", "opt", "full", "auto"] {
        let out = waddle(&["run", "--tier", tier, p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{tier}");
        assert_eq!(text(&out.stderr), want, "{tier}");
    }
}

#[test]
fn runtime_error_exit_2_after_flushed_output() {
    let p = program(
        "rt.wdl",
        "print(\"before\");\nvar a: [int] = [];\nprint(pop(a));\n",
    );
    let out = waddle(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "before\n");
    let err = text(&out.stderr);
    assert_eq!(
        err,
        format!(
            "error: runtime error: pop from empty array\n  --> {}:3:7\n",
            p.display()
        )
    );
}

#[test]
fn compile_error_exit_1_runs_nothing() {
    let p = program("ce.wdl", "print(1);\nlet x: int = true;\n");
    let out = waddle(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.starts_with("error"), "{err}");
    assert!(err.contains("ce.wdl:2:"), "{err}");
}

#[test]
fn an_error_on_a_huge_line_quotes_a_window_of_it() {
    // 5 000 nested parentheses on one 10 kB line: the nesting limit is
    // reported at its real column without printing the whole line.
    let line = format!("let x: int = {}1{};", "(".repeat(5_000), ")".repeat(5_000));
    let p = program("deep.wdl", &format!("print(1);\n{line}\n"));
    let out = waddle(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains("nested too deeply"), "{err}");
    assert!(err.contains("deep.wdl:2:270"), "{err}");
    assert!(err.contains("...((("), "{err}");
    assert!(err.len() < 1_000, "{} bytes: {err}", err.len());
}

#[test]
fn fuel_flag() {
    let p = program("fuel.wdl", "print(1);\nwhile true { }\n");
    let out = waddle(&["run", "--fuel", "1000", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "1\n");
    assert!(text(&out.stderr).starts_with("error: runtime error: out of fuel\n"));
}

#[test]
fn emit_forms() {
    let p = program(
        "emit.wdl",
        "fn f(x: int) -> int { return x + 1; }\nprint(f(1));\n",
    );
    for emit in ["ast", "ir", "opt-ir", "vsdg"] {
        let out = waddle(&["run", "--emit", emit, p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{emit}: {}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(s.contains('f') && !s.contains("\n2\n"), "{emit}: {s}");
    }
    // The VSDG is Graphviz: one digraph per function, regions as clusters.
    let out = waddle(&["run", "--emit", "vsdg", p.to_str().unwrap()]);
    let s = text(&out.stdout);
    assert!(s.starts_with("digraph \"f\" {"), "{s}");
    assert!(
        s.contains("subgraph cluster_r0") && s.contains("iadd"),
        "{s}"
    );
    let out = waddle(&["run", "--passes", "no-such-pass", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unknown pass `no-such-pass`"));
}

/// `--emit asm` disassembles what `waddle run` would run, per function,
/// with the run's options (a fuel budget adds fuel checks), without
/// running it.
#[test]
fn emit_asm_lists_each_functions_machine_code() {
    let p = program(
        "asm.wdl",
        "fn f(n: int) -> int {\n    var s = 0;\n    for i in 0..n { s = s + i; }\n    \
         return s;\n}\nprint(f(10));\n",
    );
    let path = p.to_str().unwrap();
    let header = |listing: &str, name: &str| -> String {
        let line = listing
            .lines()
            .find(|l| l.starts_with(&format!("; {name}: ")))
            .unwrap_or_else(|| panic!("no header for {name} in {listing}"));
        line.to_string()
    };
    for tier in ["baseline", "opt", "full"] {
        let out = waddle(&["run", "--emit", "asm", "--tier", tier, path]);
        assert_eq!(out.status.code(), Some(0), "{tier}: {}", text(&out.stderr));
        let s = text(&out.stdout);
        assert!(!s.contains("\n45\n"), "{tier} ran the program: {s}");
        for name in ["f", ".main"] {
            let h = header(&s, name);
            assert!(h.ends_with(&format!(" bytes ({tier} tier)")), "{h}");
        }
        assert!(s.contains("ret"), "{tier}: {s}");
        // With a budget the loop counts fuel: different, longer code.
        let fueled = waddle(&[
            "run", "--emit", "asm", "--tier", tier, "--fuel", "100", path,
        ]);
        let fueled = text(&fueled.stdout);
        assert_ne!(header(&s, "f"), header(&fueled, "f"), "{tier}");
    }
    let out = waddle(&["run", "--emit", "asm", "--tier", "interp", path]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        header(&text(&out.stdout), "f"),
        "; f: no machine code (tier interp)"
    );
    let out = waddle(&["run", "--emit", "asm", "--tier", "auto", path]);
    assert!(header(&text(&out.stdout), "f").contains("no machine code yet"));
    let out = waddle(&["run", "--emit", "asm", "--target", "aarch64", path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--emit asm"),
        "{}",
        text(&out.stderr)
    );
}

/// The instructions of `block0` of function `name` in an `--emit opt-ir` dump.
fn entry_block(ir: &str, name: &str) -> String {
    let func = ir
        .split("\nfn ")
        .find(|f| f.contains(&format!("\"{name}\"(")))
        .unwrap_or_else(|| panic!("no function {name} in {ir}"));
    let body = func.split("block0").nth(1).expect("entry block");
    body.split("\nblock").next().unwrap().to_string()
}

/// `--emit opt-ir --tier full` prints the IR after the VSDG round trip, not
/// T2's: every node is placed by need, constants included, where T2's
/// sinking moves the computation into the arm but leaves the constants at
/// the entry.
#[test]
fn emit_opt_ir_under_tier_full_shows_the_sequentialized_ir() {
    let p = program(
        "lazy.wdl",
        "fn f(x: int, p: bool) -> int {\n    let h = (x * x + 13) % 1009;\n    \
         if p {\n        return h;\n    }\n    return 0;\n}\nprint(f(3, true));\n",
    );
    let path = p.to_str().unwrap();
    let emit = |tier: &str| {
        let out = waddle(&["run", "--emit", "opt-ir", "--tier", tier, path]);
        assert_eq!(out.status.code(), Some(0), "{tier}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let (opt, full) = (emit("opt"), emit("full"));
    // T2: the square is sunk into the arm that returns it; its constants
    // stay at the entry.
    let entry = entry_block(&opt, "f");
    assert!(
        !entry.contains("imul") && entry.contains("iconst 13"),
        "{opt}"
    );
    // T3: the entry only tests `p`; everything else is computed once, in
    // the arm that returns it.
    let entry = entry_block(&full, "f");
    assert!(
        !entry.contains("imul") && !entry.contains("iconst") && entry.contains("br v"),
        "{full}"
    );
    assert_eq!(full.matches("imul").count(), 1, "{full}");
    let arm = full
        .split("\nblock")
        .find(|b| b.contains("imul"))
        .expect("a block with the square");
    assert!(!arm.starts_with("0(") && arm.contains("return"), "{full}");
}

#[test]
fn pass_diagnostics() {
    let p = program(
        "trace.wdl",
        "fn f(x: int) -> int { let y = x * 2; return x + 1; }\nprint(f(1));\n",
    );
    let path = p.to_str().unwrap();
    for tier in ["interp", "opt"] {
        let out = waddle(&["run", "--tier", tier, "--time-passes", path]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "2\n");
        let err = text(&out.stderr);
        for row in ["canonicalize", "sccp", "dce", "gvn", "total"] {
            assert!(err.contains(row), "{row} missing from {err}");
        }
        let out = waddle(&["run", "--tier", tier, "--print-after", "dce", path]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "2\n");
        let err = text(&out.stderr);
        // `f`, after each of the two runs of dce: the dead multiply is gone.
        assert!(err.contains("; after dce\nfn fn0 \"f\""), "{err}");
        assert!(!err.contains("imul"), "{err}");
    }
    let out = waddle(&["run", "--emit", "opt-ir", "--print-after", "sccp", path]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("; after sccp"));
    assert!(text(&out.stdout).contains("fn fn0 \"f\""));
    let out = waddle(&["run", "--print-after", "no-such-pass", path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("unknown pass `no-such-pass`"));
}

#[test]
fn validate_reports_and_guards() {
    let p = program(
        "validate.wdl",
        "fn f(x: int) -> int { let y = x * 2; return x + 1; }\nprint(f(1));\n",
    );
    let path = p.to_str().unwrap();
    for mode in ["--validate", "--validate=report", "--validate=guard"] {
        let out = waddle(&["run", "--tier", "opt", mode, path]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "2\n");
        let err = text(&out.stderr);
        assert!(err.contains(" of 2 functions"), "{err}");
        assert!(
            err.contains("validated 1 of") || err.contains("validated 2 of"),
            "{err}"
        );
    }
    let out = waddle(&["run", "--validate=sometimes", path]);
    assert_eq!(out.status.code(), Some(1));
}

/// A function that validates only pass by pass is reported as such, and
/// validated tier-up keeps it optimized.
#[test]
fn validate_counts_per_pass_chains_apart() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../lang-tests/tests/programs/functions/inlined_constant_chains.wdl"
    );
    let expected = std::fs::read_to_string(path.replace(".wdl", ".out")).unwrap();
    for mode in ["--validate", "--validate=guard"] {
        let out = waddle(&["run", "--tier", "opt", mode, path]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected);
        let err = text(&out.stderr);
        assert!(err.contains("(1 by per-pass chain)"), "{err}");
        assert!(!err.contains("validation: `.main`"), "{err}");
    }
}

#[test]
fn repl_over_a_pipe() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_waddle"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .env("HOME", std::env::temp_dir())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"fn f(x: int) -> int {\nreturn x + 1;\n}\nf(41)\nprint(1 / 0);\n\"still here\"\n:quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("42\n"), "{stdout}");
    assert!(stdout.contains("still here\n"), "{stdout}");
    assert!(text(&out.stderr).contains("division by zero"));
}

/// Issue 9: Ctrl-C in the REPL stops the running entry and keeps the
/// session: SIGINT goes to the store's interrupt handle, the endless loop
/// ends with `interrupted` (on the interpreter and in compiled code) and
/// the globals of earlier entries are still there. One signal, sent after
/// the handler is installed (the banner comes after it) and after the
/// entry before the loop finished, so it can only stop the loop (a signal
/// that arrives before the loop starts is held for it).
#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_running_entry_and_keeps_the_session() {
    use std::io::{BufRead, BufReader, Read, Write};
    for tier in ["interp", "opt", "auto"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_waddle"))
            .args(["repl", "--tier", tier])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .env("HOME", std::env::temp_dir())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.starts_with("Waddle"), "{tier}: {line}");
        stdin.write_all(b"var n = 41;\nn\n").unwrap();
        stdin.flush().unwrap();
        line.clear();
        while !line.contains("41") {
            line.clear();
            assert_ne!(stdout.read_line(&mut line).unwrap(), 0, "{tier}: no 41");
        }
        stdin.write_all(b"while true { n += 0; }\n").unwrap();
        stdin.flush().unwrap();
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: `kill` has no memory-safety preconditions; `pid` is our
        // child, which has not been waited for, so it is still ours.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
        stdin.write_all(b"n + 1\n:quit\n").unwrap();
        drop(stdin);
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{tier}: {stderr}");
        assert!(stderr.contains("interrupted"), "{tier}: {stderr}");
        assert!(rest.contains("42\n"), "{tier}: {rest}");
    }
}

fn repl_with_input(input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_waddle"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .env("HOME", std::env::temp_dir())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Issue 13, defect 4: a line of invalid UTF-8 is reported and skipped; an
/// unclosed `(` does not swallow `:quit`; an entry open at the end of
/// input is reported (exit status 1).
#[test]
fn repl_survives_bad_input() {
    let out = repl_with_input(b"print(1);\n\xff\xfe oops\nprint(2);\n");
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("1\n2\n"), "{stdout}");
    assert!(
        text(&out.stderr).contains("input line 2 is not valid UTF-8"),
        "{}",
        text(&out.stderr)
    );

    let out = repl_with_input(b"print((1\n:quit\nprint(3);\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out.stdout).contains('3'), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("discarded at a `:` command"));

    let out = repl_with_input(b"print(4);\nfn f() {\n  return;\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("4\n"));
    let err = text(&out.stderr);
    assert!(err.contains("discarded at the end of input"), "{err}");
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
#[test]
fn allow_ffi_flag() {
    let p = program(
        "ffi.wdl",
        "extern \"libm.so.6\" fn ldexp(x: float, e: int) -> float;\nprint(ldexp(1.5, 4));\n",
    );
    let p = p.to_str().unwrap();
    let out = waddle(&["run", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--allow-ffi"),
        "{}",
        text(&out.stderr)
    );
    for tier in ["interp", "opt"] {
        let out = waddle(&["run", "--allow-ffi", "--tier", tier, p]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "24.0\n");
    }
    let out = waddle(&["run", "--allow-ffi", "--emit", "ir", p]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("host h0 \"ldexp\"(float, int) -> float"));
}

/// `--allow-ffi` reaches `--target aarch64`, where FFI does not run: the
/// declaration is a compile error saying so (not the "needs `--allow-ffi`"
/// of a run without the flag).
#[test]
fn allow_ffi_on_aarch64_is_a_clear_error() {
    if waddle_jit::cross::skip_test_without_tools("allow_ffi_on_aarch64_is_a_clear_error") {
        return;
    }
    let p = program(
        "ffi_a64.wdl",
        "extern \"libm.so.6\" fn ldexp(x: float, e: int) -> float;\nprint(ldexp(1.5, 4));\n",
    );
    let p = p.to_str().unwrap();
    let out = waddle(&["run", "--target", "aarch64", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--allow-ffi"),
        "{}",
        text(&out.stderr)
    );
    let out = waddle(&["run", "--target", "aarch64", "--allow-ffi", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(
        err.contains("`extern` function `ldexp` cannot be called on --target aarch64")
            && err.contains("ffi_a64.wdl:1:1"),
        "{err}"
    );
}
