//! `waddle bench` end to end: the JSON report's structure, output checking
//! across tiers and references, failures and mismatches, the SVG plot.
//! Sizes are the programs' `--quick` ones and one run each; no timing
//! thresholds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn waddle(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_waddle"))
        .args(args)
        .output()
        .expect("waddle runs")
}

fn json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{text}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn result<'a>(program: &'a Value, name: &str) -> Option<&'a Value> {
    program["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
}

/// Tiers that generate machine code (and report codegen per IR instruction).
const NATIVE: [&str; 3] = ["baseline", "opt", "full"];

fn temp_suite(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("waddle-bench-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, program: &str, ext: &str, text: &str) {
    let d = dir.join(program);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join(format!("{program}.{ext}")), text).unwrap();
}

#[test]
fn quick_json_report_of_one_program() {
    let svg = std::env::temp_dir().join(format!("waddle-bench-test-{}.svg", std::process::id()));
    let out = waddle(&[
        "bench",
        "fib",
        "--quick",
        "--runs",
        "1",
        "--json",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let report = json(&out);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["quick"], true);
    assert_eq!(report["runs"], 1);
    assert_eq!(report["all_outputs_agree"], true);
    assert_eq!(report["all_ok"], true);
    let tiers: Vec<&str> = report["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tiers.contains(&"interp"), "{tiers:?}");

    let programs = report["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 1);
    let fib = &programs[0];
    assert_eq!(fib["name"], "fib");
    assert_eq!(fib["size"], 18);
    assert_eq!(fib["expected_output"], "2584\n");
    assert_eq!(fib["outputs_agree"], true);

    // Every measured tier ran, printed the same and has its phases.
    for tier in &tiers {
        let r = result(fib, tier).unwrap_or_else(|| panic!("no result for {tier}"));
        assert_eq!(r["kind"], "tier");
        assert_eq!(r["ok"], true, "{r:#}");
        assert_eq!(r["output_matches"], true);
        let m = &r["median"];
        for key in ["time_s", "wall_s", "compile_s", "frontend_s", "passes_s"] {
            assert!(m[key].as_f64().unwrap() >= 0.0, "{key}: {m:#}");
        }
        assert!(m["peak_rss_kib"].as_u64().unwrap() > 0, "{m:#}");
        let runs = r["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0]["output"], "2584\n");
        if NATIVE.contains(tier) {
            assert!(m["codegen_s"].as_f64().is_some(), "{m:#}");
            assert!(m["ir_insts"].as_u64().unwrap() > 0, "{m:#}");
            assert!(m["codegen_ns_per_inst"].as_f64().unwrap() > 0.0, "{m:#}");
            let funcs = r["codegen_funcs"].as_array().unwrap();
            assert!(!funcs.is_empty());
            let insts: u64 = funcs.iter().map(|f| f["ir_insts"].as_u64().unwrap()).sum();
            assert_eq!(m["ir_insts"].as_u64(), Some(insts), "{r:#}");
        } else {
            assert!(m["codegen_ns_per_inst"].is_null(), "{m:#}");
        }
    }
    // One code generation comparison per pair of measured native tiers.
    let native: Vec<&str> = tiers
        .iter()
        .copied()
        .filter(|t| NATIVE.contains(t))
        .collect();
    let pairs = report["codegen_per_inst"].as_array().unwrap();
    assert_eq!(
        pairs.len(),
        native.len() * native.len().saturating_sub(1) / 2,
        "{pairs:#?}"
    );
    for c in pairs {
        assert!(native.contains(&c["first"].as_str().unwrap()), "{c:#}");
        assert!(native.contains(&c["second"].as_str().unwrap()), "{c:#}");
        assert_eq!(c["programs"], 1);
        let (a, b) = (
            c["first_ns_per_inst"].as_f64().unwrap(),
            c["second_ns_per_inst"].as_f64().unwrap(),
        );
        assert!(
            (c["ratio"].as_f64().unwrap() - b / a).abs() <= 1e-9 * (b / a),
            "{c:#}"
        );
    }
    let interp = result(fib, "interp").unwrap();
    assert!((interp["ratio_to_best_tier"].as_f64().unwrap()) >= 1.0 - 1e-9);

    // References that this machine has must agree too; C gives the ratios.
    for reference in report["references"].as_array().unwrap() {
        let name = reference["name"].as_str().unwrap();
        match result(fib, name) {
            Some(r) => {
                assert!(!reference["command"].is_null());
                assert_eq!(r["kind"], "reference");
                assert_eq!(r["output_matches"], true, "{r:#}");
            }
            None => assert!(reference["command"].is_null(), "{name} missing"),
        }
    }
    if result(fib, "C").is_some() {
        assert!(interp["ratio_to_c"].as_f64().is_some());
        assert_eq!(result(fib, "C").unwrap()["ratio_to_c"], 1.0);
    }

    let chart = std::fs::read_to_string(&svg).expect("plot written");
    let _ = std::fs::remove_file(&svg);
    assert!(chart.contains("<svg") && chart.contains("fib"), "{chart}");
}

#[test]
fn tables_show_codegen_per_ir_instruction() {
    let out = waddle(&[
        "bench",
        "fib",
        "--quick",
        "--runs",
        "1",
        "--no-ref",
        "--tiers",
        "baseline,opt",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let header = text
        .lines()
        .find(|l| l.trim_start().starts_with("impl"))
        .unwrap();
    assert!(
        header.contains("codegen") && header.contains("cg/IR inst"),
        "{text}"
    );
    let baseline_available = !text.contains("tier `baseline` is not available");
    let summary = text
        .lines()
        .find(|l| l.starts_with("codegen per IR instruction:"));
    if baseline_available {
        let summary = summary.unwrap_or_else(|| panic!("no summary line in\n{text}"));
        assert!(
            summary.contains("baseline ") && summary.contains("opt/baseline = "),
            "{summary}"
        );
    } else {
        assert!(summary.is_none(), "{text}");
    }
}

#[test]
fn failures_and_mismatches_are_flagged() {
    let dir = temp_suite("flags");
    // `boom` fails at run time on every tier.
    write(
        &dir,
        "boom",
        "wdl",
        "// bench: quick=1\nfn main(n: int) { print(n); assert(n > 5); }\nmain(10);\n",
    );
    // `wrong`'s Python reference prints something else.
    write(
        &dir,
        "wrong",
        "wdl",
        "// bench: quick=2\nfn main(n: int) { print(n * 2); }\nmain(10);\n",
    );
    write(
        &dir,
        "wrong",
        "py",
        "import sys\nprint(int(sys.argv[1]) * 3)\n",
    );
    let out = waddle(&[
        "bench",
        "--dir",
        dir.to_str().unwrap(),
        "--quick",
        "--runs",
        "1",
        "--json",
        "--tiers",
        "interp",
    ]);
    let report = json(&out);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(report["all_ok"], false);
    let programs = report["programs"].as_array().unwrap();
    let boom = programs.iter().find(|p| p["name"] == "boom").unwrap();
    let interp = result(boom, "interp").unwrap();
    assert_eq!(interp["ok"], false);
    assert!(
        interp["error"]
            .as_str()
            .unwrap()
            .contains("assertion failed"),
        "{interp:#}"
    );
    assert_eq!(interp["runs"][0]["output"], "1\n");

    let wrong = programs.iter().find(|p| p["name"] == "wrong").unwrap();
    assert_eq!(result(wrong, "interp").unwrap()["output_matches"], true);
    assert_eq!(wrong["expected_output"], "4\n");
    let has_python = report["references"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["name"] == "python3" && !r["command"].is_null());
    if has_python {
        assert_eq!(report["all_outputs_agree"], false);
        assert_eq!(wrong["outputs_agree"], false);
        assert_eq!(result(wrong, "python3").unwrap()["output_matches"], false);
    }
}

/// `--refs` keeps only the named references; the others are neither run
/// nor described.
#[test]
fn refs_selects_the_references() {
    let out = waddle(&[
        "bench", "fib", "--quick", "--runs", "1", "--tiers", "interp", "--refs", "c", "--json",
    ]);
    let report = json(&out);
    let fib = &report["programs"][0];
    for name in ["lua5.4", "luajit", "python3"] {
        assert!(result(fib, name).is_none(), "{name} ran");
    }
    let described: Vec<&Value> = report["references"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["command"].is_null())
        .collect();
    assert!(described.len() <= 1, "{described:?}");
    if let Some(c) = described.first() {
        assert_eq!(c["name"], "C");
        assert!(result(fib, "C").is_some());
    }
}

#[test]
fn bad_invocations_are_errors() {
    let out = waddle(&["bench", "no_such_benchmark", "--quick"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no benchmark named `no_such_benchmark`"),
        "{err}"
    );

    let out = waddle(&["bench", "fib", "--tiers", "turbo"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tier `turbo`"));

    let out = waddle(&["bench", "fib", "--quick", "--refs", "C,cobol"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown reference `cobol`"));

    let out = waddle(&["bench", "fib", "--plot", "/nonexistent-dir/x.svg"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));

    let dir = temp_suite("nomain");
    write(&dir, "nomain", "wdl", "print(1);\n");
    let out = waddle(&["bench", "--dir", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must end with a line `main(N);`"));
}

/// `--validate`: per program, validated functions and the ratio of
/// validation time to compile time, and a total line; a program that does
/// not compile is an error.
#[test]
fn validate_prints_validated_functions_and_time_ratios() {
    let out = waddle(&["bench", "--validate", "--runs", "1", "fib", "sieve"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let header: Vec<&str> = text
        .lines()
        .nth(1)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(
        header[2..],
        [
            "chain",
            "frontend",
            "passes",
            "codegen",
            "compile",
            "validate",
            "val/compile",
            "val/passes"
        ],
        "{text}"
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(names, ["fib", "sieve", "total"], "{text}");
    for r in &rows {
        let (v, n) = r[1].split_once('/').expect("validated N/M");
        let (v, n): (u32, u32) = (v.parse().unwrap(), n.parse().unwrap());
        assert!(n > 0 && v <= n, "{text}");
        let chained: u32 = r[2].parse().expect("functions validated by chain");
        assert!(chained <= v, "{text}");
        // A program whose functions validate at once may print 0.00 against
        // the whole compile; the total validates sieve, which takes longer.
        for ratio in &r[r.len() - 2..] {
            let ratio: f64 = ratio.parse().expect("a ratio");
            assert!(ratio > 0.0 || (ratio == 0.0 && r[0] != "total"), "{text}");
        }
    }

    let dir = temp_suite("validate");
    write(
        &dir,
        "broken",
        "wdl",
        "// bench: quick=1\nfn main(n: int) { return x; }\nmain(1);\n",
    );
    let out = waddle(&["bench", "--validate", "--dir", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not compile"));
}

/// `--validate --corpus`: the corpus figures (whole pipeline, per pass,
/// time ratios) and every function that does not validate with its
/// reason; a program the frontend rejects is skipped, not an error.
#[test]
fn validate_corpus_lists_every_function_that_does_not_validate() {
    let dir = temp_suite("validate-corpus");
    std::fs::create_dir_all(dir.join("group")).unwrap();
    std::fs::write(
        dir.join("group/sum.wdl"),
        "fn sum(n: int) -> int {\n    var s = 0;\n    for i in 0..n {\n        s += i;\n    }\n    return s;\n}\nprint(sum(10));\n",
    )
    .unwrap();
    // BCE removes the checks of a counted loop over the array's length,
    // which validates (range facts, R8).
    std::fs::write(
        dir.join("group/fill.wdl"),
        "fn fill(a: [int]) {\n    for i in 0..len(a) {\n        a[i] = i;\n    }\n}\nlet a = [0; 5];\nfill(a);\nprint(a[4]);\n",
    )
    .unwrap();
    // The unrolled loop that exits from its body with the value it
    // computes there: `k + 1` over the exit φ on one side, inside it on the
    // other, which validates by factoring (R9).
    std::fs::write(
        dir.join("group/spin.wdl"),
        "fn spin(n: int) -> int {\n    var k = n;\n    while true {\n        k += 1;\n        if k % 7 == 0 { return k; }\n    }\n}\nprint(spin(3));\n",
    )
    .unwrap();
    // An unrolled loop with a division check in its body and an early
    // `return`: the exit tokens nest in the return φ, which validates by
    // flattening it (R10).
    std::fs::write(
        dir.join("group/prime.wdl"),
        "fn is_prime(n: int) -> bool {\n    if n < 2 { return false; }\n    if n % 2 == 0 { return n == 2; }\n    var d = 3;\n    while d * d <= n {\n        if n % d == 0 { return false; }\n        d += 2;\n    }\n    return true;\n}\nprint(is_prime(97));\n",
    )
    .unwrap();
    // An unrolled loop under two outer loops, left through a condition
    // of two tests: its exits reach through two loop levels (a documented
    // missing rule; `lang-tests`' classic/mandelbrot.wdl).
    std::fs::write(
        dir.join("group/mandel.wdl"),
        "var inside = 0;\nfor row in 0..8 {\n    for col in 0..8 {\n        \
         let cr = -2.2 + 3.2 * float(col) / 8.0;\n        \
         let ci = -1.2 + 2.4 * float(row) / 8.0;\n        \
         var zr = 0.0;\n        var zi = 0.0;\n        var k = 0;\n        \
         while k < 50 && zr * zr + zi * zi <= 4.0 {\n            \
         let t = zr * zr - zi * zi + cr;\n            zi = 2.0 * zr * zi + ci;\n            \
         zr = t;\n            k += 1;\n        }\n        \
         if k == 50 { inside += 1; }\n    }\n}\nprint(inside);\n",
    )
    .unwrap();
    std::fs::write(dir.join("group/broken.wdl"), "fn f() { return x; }\n").unwrap();
    let out = waddle(&[
        "bench",
        "--validate",
        "--corpus",
        "--runs",
        "1",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("5 programs (1 skipped)"), "{text}");
    assert!(text.contains("whole pipeline: validated "), "{text}");
    assert!(text.contains("validate/passes "), "{text}");
    // The whole compile includes Cranelift's machine code.
    assert!(
        text.contains("compile (frontend+passes+codegen) "),
        "{text}"
    );
    assert!(text.contains("validate/compile "), "{text}");
    let bce = text
        .lines()
        .find(|l| l.trim_start().starts_with("bce "))
        .unwrap_or_else(|| panic!("a bce row: {text}"));
    assert!(bce.split_whitespace().nth(2) != Some("0"), "{text}");
    let listed = text
        .lines()
        .find(|l| l.contains("group/mandel.wdl: .main:"))
        .unwrap_or_else(|| panic!("mandel's .main is listed: {text}"));
    assert!(listed.contains("missing rule (unroll:"), "{text}");
    assert!(!text.contains("group/spin.wdl: spin:"), "{text}");
    assert!(!text.contains("group/prime.wdl: is_prime:"), "{text}");
    assert!(!text.contains("group/sum.wdl: sum:"), "{text}");
    assert!(!text.contains("group/fill.wdl: fill:"), "{text}");
}

/// `--validate --corpus --tiers opt,full`: one report per pipeline, the
/// full one with the VSDG round trip's row; a comparison of a φ that the
/// round trip moves into its γ validates on both (R12). A tier without a
/// pipeline of its own is an error.
#[test]
fn validate_corpus_measures_the_full_pipeline_too() {
    let dir = temp_suite("validate-corpus-full");
    std::fs::create_dir_all(dir.join("group")).unwrap();
    std::fs::write(
        dir.join("group/gamma.wdl"),
        "fn f(x: int) {\n    var y = 0;\n    while y < 2 {\n        var c = 1;\n        \
         if x == 0 { c = 0; }\n        if c == 0 { print(y); }\n        y = y + 1;\n    }\n}\n\
         f(0);\nf(1);\n",
    )
    .unwrap();
    let run = |tiers: &str| {
        waddle(&[
            "bench",
            "--validate",
            "--corpus",
            "--runs",
            "1",
            "--tiers",
            tiers,
            "--dir",
            dir.to_str().unwrap(),
        ])
    };
    let out = run("opt,full");
    let bad = run("interp");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let (o2, full) = text
        .split_once("lang-test corpus (full: -O2 + VSDG round trip)")
        .unwrap_or_else(|| panic!("a full section: {text}"));
    assert!(o2.contains("lang-test corpus (-O2)"), "{text}");
    assert!(!o2.lines().any(|l| l.starts_with("vsdg ")), "{text}");
    assert!(full.lines().any(|l| l.starts_with("vsdg ")), "{text}");
    for part in [o2, full] {
        assert!(part.contains("validated 2 of 2 functions"), "{text}");
        assert!(
            part.contains("functions that do not validate (0)"),
            "{text}"
        );
    }
    assert_eq!(bad.status.code(), Some(1), "{bad:?}");
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("not `interp`"),
        "{bad:?}"
    );
}
