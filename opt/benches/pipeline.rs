//! Time of the `-O2` pass pipeline over the lang-test corpus.
//!
//! Every lang-test program that compiles is lowered by the frontend and
//! then optimized by [`passes::run_pipeline`] at `-O2`, from the lowered
//! program (so establishing canonical form is part of the measured time),
//! the fastest of several runs per program. Figures are summed per program
//! group, then for the whole corpus, followed by the slowest programs.
//!
//! Run with `cargo bench -p waddle-opt --bench pipeline`; set
//! `WADDLE_BENCH_QUICK=1` for one run per program.

use std::time::{Duration, Instant};

use waddle_opt::passes;

#[allow(dead_code)]
mod corpus;

/// How many of the slowest programs are listed one by one.
const SLOWEST: usize = 5;

fn main() {
    let quick = std::env::var("WADDLE_BENCH_QUICK").is_ok_and(|v| !v.is_empty());
    let reps = if quick { 1 } else { 10 };
    let (programs, skipped) = match corpus::load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lang-test corpus not readable: {e}");
            return;
        }
    };
    println!(
        "-O2 pipeline over {} lang-test programs ({skipped} skipped), fastest of {reps} runs each",
        programs.len()
    );
    println!(
        "{:<14} {:>5} {:>8} {:>12} {:>12}",
        "group", "progs", "insts", "time", "ns/inst"
    );
    let row = |label: &str, progs: usize, insts: usize, t: Duration| {
        println!(
            "{:<14} {:>5} {:>8} {:>10.3}ms {:>12.1}",
            label,
            progs,
            insts,
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() * 1e9 / insts.max(1) as f64
        );
    };
    let (mut all_t, mut all_i) = (Duration::ZERO, 0);
    let mut each: Vec<(String, Duration)> = Vec::new();
    let mut k = 0;
    while k < programs.len() {
        let group = programs[k].group.clone();
        let (mut t, mut insts, mut progs) = (Duration::ZERO, 0, 0);
        while k < programs.len() && programs[k].group == group {
            let cp = &programs[k];
            let best = (0..reps)
                .map(|_| {
                    let mut p = cp.lowered.clone();
                    let start = Instant::now();
                    passes::run_pipeline(&mut p, 2);
                    start.elapsed()
                })
                .min()
                .unwrap_or_default();
            t += best;
            insts += cp
                .lowered
                .funcs
                .values()
                .map(|f| f.inst_count())
                .sum::<usize>();
            each.push((cp.name.clone(), best));
            progs += 1;
            k += 1;
        }
        row(&group, progs, insts, t);
        all_t += t;
        all_i += insts;
    }
    row("all", programs.len(), all_i, all_t);
    each.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("slowest programs:");
    for (name, t) in each.iter().take(SLOWEST) {
        println!("  {:<50} {:>10.3}ms", name, t.as_secs_f64() * 1e3);
    }
}
