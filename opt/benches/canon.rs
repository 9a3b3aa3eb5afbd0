//! Incremental repair versus rebuilding every analysis (Fritz §10.4).
//!
//! Runs the fixed pass sequence FI, JT, JS, UNS, IS, S, UNS, UNR, S over
//! generated large functions (structured control flow: ifs, loops nested up
//! to depth 4, calls of small functions, constant and loop-invariant
//! conditions, empty joins) in two modes:
//! - incremental: every primitive repairs the dominator tree, loop forest
//!   and use lists locally (the always-canonical editor);
//! - rebuild: primitives do only the edit (and maintain use lists, as in
//!   Fritz §10.2), then canonical form and every analysis are recomputed
//!   from scratch after each control-flow primitive.
//!
//! Run with `cargo bench -p waddle-opt --bench canon`; set
//! `WADDLE_BENCH_QUICK=1` for one small size, or `WADDLE_BENCH_SIZES=300,1000`;
//! `WADDLE_BENCH_CHECK=1` runs the from-scratch checker after every
//! primitive (to test the repairs on large graphs, not to time them).

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use waddle_opt::editor::{Editor, Mode};
use waddle_opt::ir::{FuncId, Function, Program};
use waddle_opt::passes;

mod gen;
use gen::generate;

/// The names of the sequence's steps.
const STEPS: [&str; 9] = ["FI", "JT", "JS", "UNS", "IS", "S", "UNS", "UNR", "S"];

/// The §10.4 sequence on the big function; returns the elapsed time, the
/// time of each step, and the number of primitive applications.
fn run_sequence(p: &Program, mode: Mode) -> (Duration, [Duration; 9], u64) {
    let mut p = p.clone();
    let callees: FxHashMap<FuncId, Function> = passes::inline_candidates(&p);
    let big = FuncId::from_u32(1);
    let start = Instant::now();
    let f = &mut p.funcs[big];
    let mut ed = Editor::new(f);
    ed.set_mode(mode);
    // WADDLE_BENCH_CHECK=1 verifies every primitive (slow; for testing).
    ed.set_checking(std::env::var("WADDLE_BENCH_CHECK").is_ok_and(|v| v == "1"));
    let mut steps = [Duration::ZERO; 9];
    let mut t = Instant::now();
    let mut lap = |k: usize, t: &mut Instant| {
        steps[k] = t.elapsed();
        *t = Instant::now();
    };
    passes::inline_calls(&mut ed, big, &callees);
    lap(0, &mut t);
    passes::jump_thread(&mut ed);
    lap(1, &mut t);
    passes::jump_simplify(&mut ed);
    lap(2, &mut t);
    passes::unswitch(&mut ed);
    lap(3, &mut t);
    passes::if_simplify(&mut ed);
    lap(4, &mut t);
    passes::straighten(&mut ed);
    lap(5, &mut t);
    passes::unswitch(&mut ed);
    lap(6, &mut t);
    passes::unroll(&mut ed);
    lap(7, &mut t);
    passes::straighten(&mut ed);
    lap(8, &mut t);
    let edits = ed.stats().edits;
    drop(ed);
    (start.elapsed(), steps, edits)
}

fn main() {
    let quick = std::env::var("WADDLE_BENCH_QUICK").is_ok_and(|v| !v.is_empty());
    let sizes: Vec<usize> = match std::env::var("WADDLE_BENCH_SIZES") {
        Ok(list) => list
            .split(',')
            .filter_map(|s| s.trim().parse().ok())
            .collect(),
        Err(_) if quick => vec![100],
        Err(_) => vec![100, 300, 1000, 3000],
    };
    println!("Fritz §10.4 sequence FI, JT, JS, UNS, IS, S, UNS, UNR, S");
    println!(
        "{:>6} {:>7} {:>7} {:>14} {:>14} {:>8}",
        "size", "blocks", "edits", "incremental", "rebuild", "ratio"
    );
    for &size in &sizes {
        let seeds = if quick { 1 } else { 3 };
        let (mut inc, mut reb) = (Duration::ZERO, Duration::ZERO);
        let (mut blocks, mut edits) = (0, 0);
        let mut inc_steps = [Duration::ZERO; 9];
        let mut reb_steps = [Duration::ZERO; 9];
        for seed in 0..seeds {
            let p = generate(size, 0x9e37_79b9_7f4a_7c15 ^ (seed + size as u64));
            blocks += p.funcs[FuncId::from_u32(1)].layout.len();
            let (t, st, e) = run_sequence(&p, Mode::Incremental);
            inc += t;
            edits += e;
            for k in 0..9 {
                inc_steps[k] += st[k];
            }
            let (t, st, _) = run_sequence(&p, Mode::Rebuild);
            reb += t;
            for k in 0..9 {
                reb_steps[k] += st[k];
            }
        }
        println!(
            "{:>6} {:>7} {:>7} {:>12.2}ms {:>12.2}ms {:>7.1}x",
            size,
            blocks / seeds as usize,
            edits / seeds,
            inc.as_secs_f64() * 1e3 / seeds as f64,
            reb.as_secs_f64() * 1e3 / seeds as f64,
            reb.as_secs_f64() / inc.as_secs_f64().max(1e-9)
        );
        let per_step: Vec<String> = STEPS
            .iter()
            .enumerate()
            .map(|(k, name)| {
                format!(
                    "{name} {:.1}/{:.1}",
                    inc_steps[k].as_secs_f64() * 1e3 / seeds as f64,
                    reb_steps[k].as_secs_f64() * 1e3 / seeds as f64
                )
            })
            .collect();
        println!(
            "        per step, ms incremental/rebuild: {}",
            per_step.join(", ")
        );
    }
}
