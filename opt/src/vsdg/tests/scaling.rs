//! Compile-time scaling of the round trip (issue 11: near-linear on
//! generated functions of 100 to 10 000 blocks). Work is counted in
//! [`crate::vsdg::work`] steps, not wall-clock time; the times are printed
//! for the report only.

use std::fmt::Write as _;

use super::{eval, trip};
use crate::vsdg::work;

/// A function of about `4 * k` blocks: `k` sections, each a two-way
/// branch with a join or, when `loop_every` is `Some(m)`, every `m`th a
/// loop (preheader, header, body, exit), all threading one accumulator.
fn generated(k: usize, loop_every: Option<usize>) -> String {
    let mut s = String::from("fn fn0 \"scale\"(int, int) -> int {\nblock0(v0: int, v1: int):\n");
    let mut next_v = 3;
    let mut next_b = 1;
    let mut fresh_v = || {
        next_v += 1;
        next_v - 1
    };
    let mut fresh_b = || {
        next_b += 1;
        next_b - 1
    };
    let mut acc_block = fresh_b();
    let _ = writeln!(s, "    v2: int = iconst 0\n    jump block{acc_block}(v2)");
    for i in 0..k {
        let acc = fresh_v();
        let _ = writeln!(s, "block{acc_block}(v{acc}: int):");
        if loop_every.is_some_and(|m| i % m == m - 1) {
            let (hdr, body, exit, join) = (fresh_b(), fresh_b(), fresh_b(), fresh_b());
            let (zero, one) = (fresh_v(), fresh_v());
            let (h, c, t, e, r) = (fresh_v(), fresh_v(), fresh_v(), fresh_v(), fresh_v());
            let _ = writeln!(s, "    v{zero}: int = iconst 0");
            let _ = writeln!(s, "    v{one}: int = iconst 1");
            let _ = writeln!(s, "    jump block{hdr}(v{zero})");
            let _ = writeln!(s, "block{hdr}(v{h}: int):");
            let _ = writeln!(s, "    v{c}: bool = icmp lt v{h}, v1");
            let _ = writeln!(s, "    br v{c}, block{body}, block{exit}(v{h})");
            let _ = writeln!(s, "block{body}:");
            let _ = writeln!(s, "    v{t}: int = iadd v{h}, v{one}");
            let _ = writeln!(s, "    jump block{hdr}(v{t})");
            let _ = writeln!(s, "block{exit}(v{e}: int):");
            let _ = writeln!(s, "    v{r}: int = iadd v{acc}, v{e}");
            let _ = writeln!(s, "    jump block{join}(v{r})");
            acc_block = join;
        } else {
            let (a, b, join) = (fresh_b(), fresh_b(), fresh_b());
            let (k, c, x, y, z) = (fresh_v(), fresh_v(), fresh_v(), fresh_v(), fresh_v());
            let _ = writeln!(s, "    v{k}: int = iconst {}", i % 97);
            let _ = writeln!(s, "    v{c}: bool = icmp lt v{acc}, v{k}");
            let _ = writeln!(s, "    br v{c}, block{a}, block{b}");
            let _ = writeln!(s, "block{a}:");
            let _ = writeln!(s, "    v{x}: int = imul v{acc}, v0");
            let _ = writeln!(s, "    v{y}: int = iadd v{x}, v{k}");
            let _ = writeln!(s, "    jump block{join}(v{y})");
            let _ = writeln!(s, "block{b}:");
            let _ = writeln!(s, "    v{z}: int = isub v{acc}, v{k}");
            let _ = writeln!(s, "    jump block{join}(v{z})");
            acc_block = join;
        }
    }
    let r = fresh_v();
    let _ = writeln!(s, "block{acc_block}(v{r}: int):\n    return v{r}\n}}");
    s
}

/// Steps per block stay within a small factor from 100 to 10 000 blocks,
/// for chains of branches, of branches and loops, and of loops only, and
/// the round trip preserves the result. A single-exit loop is an ordinary
/// node of its region, so `m` loops in sequence do not nest `m` regions
/// deep (which made region-tree walks, and so the whole round trip,
/// quadratic in the number of loops). Times are printed for the report.
#[test]
fn round_trip_work_grows_near_linearly() {
    for loop_every in [None, Some(8), Some(1)] {
        let mut per_block = Vec::new();
        for k in [25, 250, 2500] {
            let text = generated(k, loop_every);
            let mut f = crate::ir::parse_function(&text).expect("generated text parses");
            crate::canon::canonicalize(&mut f);
            let start = work::steps();
            let t = std::time::Instant::now();
            let mut g = f.clone();
            crate::vsdg::round_trip(&mut g).unwrap_or_else(|e| panic!("{e}"));
            let elapsed = t.elapsed();
            let steps = work::steps() - start;
            let (before, after) = trip(&text);
            let blocks = before.layout.len();
            assert_eq!(eval(&after, &[3, 4]).result, eval(&before, &[3, 4]).result);
            // No code is duplicated: the round trip gives back as many
            // blocks as it was given, give or take the merged forwarders.
            assert!(
                after.layout.len() <= blocks,
                "{} > {blocks}",
                after.layout.len()
            );
            println!(
                "vsdg scaling (loop every {loop_every:?}): {blocks} blocks, {} insts: \
                 {steps} steps, round trip {elapsed:?}",
                before.inst_count()
            );
            per_block.push(steps as f64 / blocks as f64);
        }
        let lo = per_block.iter().copied().fold(f64::MAX, f64::min);
        let hi = per_block.iter().copied().fold(0.0, f64::max);
        assert!(
            hi <= 2.0 * lo,
            "steps per block grow ({loop_every:?}): {per_block:?}"
        );
    }
}
