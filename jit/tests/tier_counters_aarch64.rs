//! T1 (baseline) code counts its calls and loop back edges on AArch64 as
//! on x86-64 (`JitOptions::tier_counters`, issue 10): the same program
//! compiled with the same start values reports the same counter run-outs,
//! in the same order, from an image run under qemu-aarch64 (the loader's
//! `TierUp` helper, `'T'` records) as from x86-64 code (`Host::hot`), and
//! their number follows from the call and iteration counts. Skipped
//! (passing, with a SKIP line) when the cross tools are missing, unless
//! `WADDLE_REQUIRE_CROSS=1`.

use waddle_frontend::{CompileOptions, SourceFile, SourceMap};
use waddle_jit::cross::{
    compile_baseline_aarch64, run_image, skip_test_without_tools, Ending, PrintValue, RunLimits,
};
use waddle_jit::{JitOptions, Tier};
use waddle_opt::ir::{FuncId, Program};
use waddle_test_support::host::TestHost;

fn program(source: &str) -> Program {
    let mut sources = SourceMap::default();
    sources.add(SourceFile::new("t.wdl", source));
    waddle_frontend::compile(&sources, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{d:?}"))
        .program
}

/// `leaf` runs 30 * (0 + 1 + ... + 39) = 23 400 times, each from a back
/// edge of `looped`'s loop; `main`'s loop takes 40 back edges; `rec(15)`
/// makes 1 973 calls.
const SOURCE: &str = "\
fn leaf(x: int) -> int { return x % 7 + 1; }
fn looped(n: int) -> int {
    var t = 0;
    var i = 0;
    while i < n { t += leaf(i); i += 1; }
    return t;
}
fn rec(n: int) -> int { if n < 2 { return n; } return rec(n - 1) + rec(n - 2); }
var total = 0;
for k in 0..40 { total += looped(k * 30); }
print(total);
print(rec(15));
";

/// Run-outs of a counter that starts at `start`, is re-armed to `again`
/// each time it runs out, and counts `events`.
fn run_outs(events: u64, start: u64, again: u64) -> usize {
    if events < start {
        0
    } else {
        (1 + (events - start) / again) as usize
    }
}

/// The x86-64 baseline's run: its printed lines and counter run-outs.
fn on_x86(p: &Program, opts: &JitOptions) -> (Vec<String>, Vec<(FuncId, bool)>) {
    let mut host = TestHost::new(p.globals.len());
    host.init_globals(p);
    let mut code = waddle_jit::compile(Tier::Baseline, p, opts).expect("x86-64 baseline");
    let main = p.main.expect("main");
    code.call(&mut host, main, &[]).expect("runs");
    let lines = host.out.lines().map(str::to_string).collect();
    (lines, std::mem::take(&mut host.hot))
}

#[test]
fn t1_counters_run_out_at_the_same_points_as_on_x86_64() {
    if skip_test_without_tools("t1_counters_run_out_at_the_same_points_as_on_x86_64") {
        return;
    }
    let p = program(SOURCE);
    let id = |name: &str| p.func_by_name(name).expect("function");
    let (leaf, looped, rec, main) = (id("leaf"), id("looped"), id("rec"), p.main.unwrap());
    for fuel in [false, true] {
        let opts = JitOptions {
            fuel,
            tier_counters: Some((3, 5)),
            ..JitOptions::default()
        };
        let image = compile_baseline_aarch64(&p, &opts).expect("AArch64 baseline image");
        assert_eq!(image.counters, Some((3, 5)));
        let run = run_image(&image, &RunLimits::default()).expect("runs under qemu");
        assert_eq!(run.ending, Ending::Finished, "fuel {fuel}");
        let printed: Vec<String> = (run.prints.iter())
            .map(|(_, v)| match v {
                PrintValue::Int(i) => i.to_string(),
                other => panic!("unexpected print {other:?}"),
            })
            .collect();
        assert_eq!(printed, ["93443", "610"], "fuel {fuel}");
        let count = |f: FuncId, back_edge: bool| {
            (run.tier_ups.iter())
                .filter(|&&e| e == (f, back_edge))
                .count()
        };
        // Every run-out re-arms the cell to 256 calls or 16 Ki back edges.
        assert_eq!(count(leaf, false), run_outs(23_400, 3, 256));
        assert_eq!(count(looped, true), run_outs(23_400, 5, 16_384));
        assert_eq!(count(looped, false), run_outs(40, 3, 256));
        assert_eq!(count(rec, false), run_outs(1_973, 3, 256));
        assert_eq!(count(main, true), run_outs(40, 5, 16_384));
        assert_eq!(count(leaf, true) + count(rec, true), 0, "no loops there");
        assert_eq!(run.tier_ups.len(), 92 + 2 + 1 + 8 + 1);

        let (lines, hot) = on_x86(&p, &opts);
        assert_eq!(lines, printed, "fuel {fuel}");
        assert_eq!(
            hot, run.tier_ups,
            "fuel {fuel}: x86-64 and AArch64 T1 counters"
        );
    }
    // Without counters, no run-out is reported.
    let image = compile_baseline_aarch64(&p, &JitOptions::default()).unwrap();
    assert_eq!(image.counters, None);
    let run = run_image(&image, &RunLimits::default()).unwrap();
    assert!(run.tier_ups.is_empty());
}
