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
//! The same sequence then runs over a second corpus: every lang-test
//! program that compiles (`lang-tests/tests/programs/**/*.wdl`, lowered
//! by the frontend and canonicalized), on each function with a body;
//! figures are summed per program group, followed by the largest
//! functions.
//!
//! Run with `cargo bench -p waddle-opt --bench canon`; set
//! `WADDLE_BENCH_QUICK=1` for one small size, or `WADDLE_BENCH_SIZES=300,1000`;
//! `WADDLE_BENCH_CORPUS=only` skips the generated functions and
//! `WADDLE_BENCH_CORPUS=0` the lang-test corpus;
//! `WADDLE_BENCH_CHECK=1` runs the from-scratch checker after every
//! primitive (to test the repairs on large graphs, not to time them).

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use waddle_opt::editor::{Editor, Mode};
use waddle_opt::ir::{FuncId, Function, Program};
use waddle_opt::passes;

#[allow(dead_code)]
mod corpus;
mod gen;
use gen::generate;

/// The names of the sequence's steps.
const STEPS: [&str; 9] = ["FI", "JT", "JS", "UNS", "IS", "S", "UNS", "UNR", "S"];

/// How many of the largest corpus functions are listed one by one.
const LARGEST: usize = 5;

/// The §10.4 sequence on a copy of function `me` (canonical), inlining
/// from `callees`; returns the elapsed time, the time of each step, and
/// the number of primitive applications.
fn run_sequence(
    func: &Function,
    me: FuncId,
    callees: &FxHashMap<FuncId, Function>,
    mode: Mode,
) -> (Duration, [Duration; 9], u64) {
    let mut f = func.clone();
    let start = Instant::now();
    let mut ed = Editor::new(&mut f);
    ed.set_mode(mode);
    // WADDLE_BENCH_CHECK=1 verifies every primitive (slow; for testing).
    ed.set_checking(std::env::var("WADDLE_BENCH_CHECK").is_ok_and(|v| v == "1"));
    let mut steps = [Duration::ZERO; 9];
    let mut t = Instant::now();
    let mut lap = |k: usize, t: &mut Instant| {
        steps[k] = t.elapsed();
        *t = Instant::now();
    };
    passes::inline_calls(&mut ed, me, callees);
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

/// Summed figures of runs in both modes.
#[derive(Clone, Copy, Default)]
struct Totals {
    /// Functions measured.
    funcs: usize,
    /// Blocks of the functions before the sequence.
    blocks: usize,
    /// Primitive applications (incremental mode).
    edits: u64,
    /// Time in incremental mode.
    inc: Duration,
    /// Time in rebuild mode.
    reb: Duration,
    /// Time of each step in incremental mode.
    inc_steps: [Duration; 9],
    /// Time of each step in rebuild mode.
    reb_steps: [Duration; 9],
}

impl Totals {
    /// Adds `o`'s figures.
    fn add(&mut self, o: &Totals) {
        self.funcs += o.funcs;
        self.blocks += o.blocks;
        self.edits += o.edits;
        self.inc += o.inc;
        self.reb += o.reb;
        for k in 0..9 {
            self.inc_steps[k] += o.inc_steps[k];
            self.reb_steps[k] += o.reb_steps[k];
        }
    }

    /// Rebuild time over incremental time.
    fn ratio(&self) -> f64 {
        self.reb.as_secs_f64() / self.inc.as_secs_f64().max(1e-9)
    }

    /// The time columns, each divided by `div`: incremental, rebuild, ratio.
    fn times(&self, div: f64) -> String {
        format!(
            "{:>12.3}ms {:>12.3}ms {:>7.1}x",
            self.inc.as_secs_f64() * 1e3 / div,
            self.reb.as_secs_f64() * 1e3 / div,
            self.ratio()
        )
    }

    /// The per-step line, times divided by `div`.
    fn steps_line(&self, div: f64) -> String {
        let per_step: Vec<String> = STEPS
            .iter()
            .enumerate()
            .map(|(k, name)| {
                format!(
                    "{name} {:.2}/{:.2}",
                    self.inc_steps[k].as_secs_f64() * 1e3 / div,
                    self.reb_steps[k].as_secs_f64() * 1e3 / div
                )
            })
            .collect();
        format!(
            "        per step, ms incremental/rebuild: {}",
            per_step.join(", ")
        )
    }
}

/// Runs the sequence on function `me` of `p` in both modes, `reps` times
/// each, keeping the fastest run of each mode.
fn measure(p: &Program, callees: &FxHashMap<FuncId, Function>, me: FuncId, reps: u32) -> Totals {
    let func = &p.funcs[me];
    let fastest = |mode: Mode| {
        (0..reps.max(1))
            .map(|_| run_sequence(func, me, callees, mode))
            .min_by_key(|r| r.0)
            .expect("at least one repetition")
    };
    let (inc, inc_steps, edits) = fastest(Mode::Incremental);
    let (reb, reb_steps, _) = fastest(Mode::Rebuild);
    Totals {
        funcs: 1,
        blocks: func.layout().len(),
        edits,
        inc,
        reb,
        inc_steps,
        reb_steps,
    }
}

/// The generated large functions, `seeds` per size; figures are means.
fn bench_generated(sizes: &[usize], seeds: u64) {
    println!("generated functions (mean of {seeds} seeds)");
    println!(
        "{:>6} {:>7} {:>7} {:>14} {:>14} {:>8}",
        "size", "blocks", "edits", "incremental", "rebuild", "ratio"
    );
    for &size in sizes {
        let mut sum = Totals::default();
        for seed in 0..seeds {
            let p = generate(size, 0x9e37_79b9_7f4a_7c15 ^ (seed + size as u64));
            let callees = passes::inline_candidates(&p);
            sum.add(&measure(&p, &callees, FuncId::from_u32(1), 1));
        }
        let n = seeds as f64;
        println!(
            "{:>6} {:>7} {:>7} {}",
            size,
            sum.blocks / seeds as usize,
            sum.edits / seeds,
            sum.times(n)
        );
        println!("{}", sum.steps_line(n));
    }
}

/// The lang-test programs: every function, fastest of `reps` runs per
/// mode; figures are sums per group, then the largest functions.
fn bench_corpus(reps: u32) {
    let (programs, skipped) = match corpus::load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lang-test corpus not readable: {e}");
            return;
        }
    };
    println!(
        "lang-test programs ({} compiled, {skipped} compile-error programs skipped; \
         sums over functions, fastest of {reps} runs each)",
        programs.len()
    );
    println!(
        "{:<14} {:>5} {:>6} {:>7} {:>7} {:>14} {:>14} {:>8}",
        "group", "progs", "funcs", "blocks", "edits", "incremental", "rebuild", "ratio"
    );
    let row = |label: &str, progs: usize, t: &Totals| {
        println!(
            "{:<14} {:>5} {:>6} {:>7} {:>7} {}",
            label,
            progs,
            t.funcs,
            t.blocks,
            t.edits,
            t.times(1.0)
        );
    };
    let mut all = Totals::default();
    let mut largest: Vec<(String, Totals)> = Vec::new();
    let mut k = 0;
    while k < programs.len() {
        let group = &programs[k].group;
        let mut sum = Totals::default();
        let mut progs = 0;
        while k < programs.len() && programs[k].group == *group {
            let cp = &programs[k];
            let callees = passes::inline_candidates(&cp.program);
            for &f in &cp.funcs {
                let t = measure(&cp.program, &callees, f, reps);
                sum.add(&t);
                let name = format!("{}:{}", cp.name, cp.program.funcs[f].name());
                largest.push((name, t));
            }
            progs += 1;
            k += 1;
        }
        row(group, progs, &sum);
        all.add(&sum);
    }
    row("all", programs.len(), &all);
    println!("{}", all.steps_line(1.0));
    largest.sort_by(|a, b| b.1.blocks.cmp(&a.1.blocks).then_with(|| a.0.cmp(&b.0)));
    println!("largest functions:");
    for (name, t) in largest.iter().take(LARGEST) {
        println!(
            "  {:<50} {:>7} {:>7} {}",
            name,
            t.blocks,
            t.edits,
            t.times(1.0)
        );
    }
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
    let corpus = std::env::var("WADDLE_BENCH_CORPUS").unwrap_or_default();
    println!("Fritz §10.4 sequence FI, JT, JS, UNS, IS, S, UNS, UNR, S");
    if corpus != "only" {
        bench_generated(&sizes, if quick { 1 } else { 3 });
    }
    if corpus != "0" {
        bench_corpus(if quick { 1 } else { 20 });
    }
}
