//! `waddle bench --scaling --doubling`: which compile phase grows faster
//! than its input.
//!
//! For every selected [`Shape`] and tier, the generated program of size `N`
//! and the one of size `2N` are compiled by child processes (the same
//! measurement as [`super::scaling`]: the engine's whole compile, then the
//! replayed phases, [`super::report::Phases::detail`]): parse, check,
//! lower, every pass of the `-O2` pipeline, and the code generator's
//! translation, emission and the rest of the unit (CPU time, where the
//! platform reports it, so other processes on the machine hardly change
//! them). The sizes alternate
//! (`N`, `2N`, `N`, `2N`, ...) for `--runs` rounds and each phase keeps its
//! best time, so load on the machine affects both sizes alike. The table
//! gives `t(N)`, `t(2N)` and `t(2N)/t(N)` for every phase: 2 is linear,
//! 4 quadratic. A phase is marked `superlinear` when its ratio exceeds
//! [`SUPERLINEAR`] and it takes a noticeable share of the compile at `2N`
//! ([`NOTICEABLE`]), so microsecond phases do not raise alarms by noise.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::child;
use super::report::Measurement;
use super::scaling::Shape;
use super::table::fmt_time;
use waddle::Tier;

/// Ratio `t(2N)/t(N)` above which a phase counts as superlinear
/// (`n log n` gives ~2.1 at these sizes, quadratic 4).
pub const SUPERLINEAR: f64 = 2.6;

/// Share of the engine's compile at `2N` (or 5 ms) a phase must take to be
/// marked.
pub const NOTICEABLE: f64 = 0.02;

/// The best time of every phase at one size (`None`: every run failed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Best {
    /// `(phase, seconds)` in the order the child reported them; the first
    /// row is `engine compile`.
    pub phases: Vec<(String, f64)>,
    /// Why the last failed run failed.
    pub error: Option<String>,
    /// Highest peak memory over the runs, in KiB.
    pub peak_rss_kib: Option<u64>,
}

impl Best {
    /// Folds one child's measurement in.
    pub fn add(&mut self, m: &Measurement) {
        let Some(p) = m.phases.as_ref().filter(|_| m.ok) else {
            self.error = Some(m.error.clone().unwrap_or_else(|| "failed".into()));
            return;
        };
        let engine = p.engine_compile_cpu_s.unwrap_or(p.engine_compile_s);
        let rows = std::iter::once(("engine compile".to_string(), engine))
            .chain(p.detail.iter().map(|d| (d.name.clone(), d.s)));
        for (name, s) in rows {
            match self.phases.iter_mut().find(|(n, _)| *n == name) {
                Some((_, best)) => *best = best.min(s),
                None => self.phases.push((name, s)),
            }
        }
        self.peak_rss_kib = self.peak_rss_kib.max(m.peak_rss_kib);
    }

    fn get(&self, name: &str) -> Option<f64> {
        self.phases.iter().find(|(n, _)| n == name).map(|&(_, s)| s)
    }
}

/// One (shape, tier) pair of sizes.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The shape.
    pub shape: Shape,
    /// The tier.
    pub tier: Tier,
    /// `N`.
    pub n: usize,
    /// Best times at `N`.
    pub small: Best,
    /// Best times at `2N`.
    pub large: Best,
}

/// A phase's verdict in a [`Pair`].
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The phase.
    pub name: String,
    /// Best time at `N`.
    pub small: Option<f64>,
    /// Best time at `2N`.
    pub large: Option<f64>,
    /// `large / small` when both exist.
    pub ratio: Option<f64>,
    /// Whether the phase is superlinear and noticeable.
    pub superlinear: bool,
}

impl Pair {
    /// Every phase seen at either size, in report order.
    pub fn rows(&self) -> Vec<Row> {
        let mut names: Vec<&str> = self.small.phases.iter().map(|(n, _)| n.as_str()).collect();
        for (n, _) in &self.large.phases {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
        let total = self.large.get("engine compile").unwrap_or(0.0);
        let floor = (total * NOTICEABLE).max(0.005);
        names
            .into_iter()
            .map(|name| {
                let (small, large) = (self.small.get(name), self.large.get(name));
                let ratio = match (small, large) {
                    (Some(a), Some(b)) if a > 0.0 => Some(b / a),
                    _ => None,
                };
                Row {
                    name: name.to_string(),
                    small,
                    large,
                    ratio,
                    superlinear: ratio.is_some_and(|r| r > SUPERLINEAR)
                        && large.is_some_and(|b| b >= floor),
                }
            })
            .collect()
    }
}

/// Measures `N` and `2N` for every shape and tier (`base` overrides each
/// shape's [`Shape::doubling_base`]), printing each pair's table as it
/// completes and a summary at the end. Returns whether every run succeeded.
pub fn run(
    exe: &Path,
    shapes: &[Shape],
    tiers: &[Tier],
    base: Option<usize>,
    runs: u32,
    limit: Duration,
) -> Result<bool, String> {
    let dir = std::env::temp_dir().join(format!("waddle-doubling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    println!(
        "compile time at N and 2N per phase (best of {runs}; CPU time; \
         limit {} s per run; ratio 2 = linear, 4 = quadratic)",
        limit.as_secs()
    );
    let mut pairs = Vec::new();
    for &shape in shapes {
        let n = base.unwrap_or_else(|| shape.doubling_base()).max(1);
        let files = [n, 2 * n].map(|size| dir.join(format!("{}-{size}.wdl", shape.name())));
        for (file, size) in files.iter().zip([n, 2 * n]) {
            std::fs::write(file, shape.generate(size))
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
        for &tier in tiers {
            let (mut small, mut large) = (Best::default(), Best::default());
            for _ in 0..runs.max(1) {
                small.add(&child::spawn_limited(
                    exe,
                    tier,
                    &files[0],
                    1,
                    false,
                    Some(limit),
                ));
                large.add(&child::spawn_limited(
                    exe,
                    tier,
                    &files[1],
                    1,
                    false,
                    Some(limit),
                ));
            }
            let pair = Pair {
                shape,
                tier,
                n,
                small,
                large,
            };
            print!("{}", render_pair(&pair));
            pairs.push(pair);
        }
        for file in &files {
            let _ = std::fs::remove_file(file);
        }
    }
    let _ = std::fs::remove_dir(&dir);
    print!("{}", render_summary(&pairs));
    Ok(pairs
        .iter()
        .all(|p| p.small.error.is_none() && p.large.error.is_none()))
}

fn fmt_cell(s: Option<f64>) -> String {
    s.map_or_else(|| "-".to_string(), fmt_time)
}

/// One pair's table.
pub fn render_pair(p: &Pair) -> String {
    let mut out = format!(
        "\n{} on {}: N = {}, 2N = {}\n",
        p.shape.name(),
        p.tier.name(),
        p.n,
        2 * p.n
    );
    for (label, best) in [("N", &p.small), ("2N", &p.large)] {
        if let Some(e) = &best.error {
            let _ = writeln!(out, "  at {label}: {e}");
        }
    }
    let _ = writeln!(
        out,
        "  {:<24} {:>10} {:>10} {:>7}",
        "phase", "t(N)", "t(2N)", "ratio"
    );
    for r in p.rows() {
        let ratio = r
            .ratio
            .map_or_else(|| "-".to_string(), |x| format!("{x:.2}"));
        let mark = if r.superlinear { "  superlinear" } else { "" };
        let _ = writeln!(
            out,
            "  {:<24} {:>10} {:>10} {:>7}{mark}",
            r.name,
            fmt_cell(r.small),
            fmt_cell(r.large),
            ratio
        );
    }
    let mem = |b: &Best| {
        b.peak_rss_kib
            .map_or("-".to_string(), |k| format!("{:.0} MiB", k as f64 / 1024.0))
    };
    let _ = writeln!(
        out,
        "  {:<24} {:>10} {:>10}",
        "peak memory",
        mem(&p.small),
        mem(&p.large)
    );
    out
}

/// Per pair: the engine's ratio and the superlinear phases.
pub fn render_summary(pairs: &[Pair]) -> String {
    let mut out =
        String::from("\nsummary (t(2N)/t(N) of the engine's compile; superlinear phases):\n");
    for p in pairs {
        let rows = p.rows();
        let engine = rows
            .iter()
            .find(|r| r.name == "engine compile")
            .and_then(|r| r.ratio)
            .map_or_else(|| "failed".to_string(), |x| format!("{x:.2}"));
        let worst: Vec<String> = rows
            .iter()
            .filter(|r| r.superlinear && r.name != "engine compile")
            .map(|r| format!("{} {:.2}", r.name, r.ratio.unwrap_or(0.0)))
            .collect();
        let _ = writeln!(
            out,
            "{:<9} {:<9} N={:<8} {:>7}  {}",
            p.shape.name(),
            p.tier.name(),
            p.n,
            engine,
            if worst.is_empty() {
                "-".to_string()
            } else {
                worst.join(", ")
            }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::report::{PhaseTime, Phases};
    use super::*;

    fn measured(compile: f64, detail: &[(&str, f64)]) -> Measurement {
        Measurement {
            ok: true,
            phases: Some(Phases {
                engine_compile_s: compile,
                detail: detail
                    .iter()
                    .map(|&(n, s)| PhaseTime {
                        name: n.to_string(),
                        s,
                    })
                    .collect(),
                ..Phases::default()
            }),
            ..Measurement::default()
        }
    }

    #[test]
    fn best_times_and_ratios_mark_only_noticeable_superlinear_phases() {
        let mut small = Best::default();
        small.add(&measured(
            1.0,
            &[("parse", 0.2), ("pass gvn", 0.5), ("lower", 1e-5)],
        ));
        small.add(&measured(
            1.5,
            &[("parse", 0.1), ("pass gvn", 0.6), ("lower", 1e-5)],
        ));
        let mut large = Best::default();
        large.add(&measured(
            2.5,
            &[("parse", 0.2), ("pass gvn", 2.0), ("lower", 1e-4)],
        ));
        large.add(&Measurement::failed("timed out".into()));
        let pair = Pair {
            shape: Shape::Locals,
            tier: Tier::Opt,
            n: 10,
            small,
            large,
        };
        let rows = pair.rows();
        let row = |n: &str| rows.iter().find(|r| r.name == n).unwrap().clone();
        assert_eq!(row("engine compile").ratio, Some(2.5));
        assert_eq!(row("parse").small, Some(0.1), "best of the runs");
        assert!(row("pass gvn").superlinear, "ratio 4 on 80 % of the time");
        assert!(!row("parse").superlinear);
        assert!(!row("lower").superlinear, "ratio 10, but 0.1 ms");
        let text = render_pair(&pair);
        assert!(text.contains("at 2N: timed out"), "{text}");
        assert!(render_summary(&[pair]).contains("pass gvn 4.00"));
    }

    #[test]
    fn the_replay_reports_every_phase() {
        let src = Shape::LoopVars.generate(8);
        let tier = if Tier::Opt.is_available() {
            Tier::Opt
        } else {
            Tier::Interp
        };
        let run = move || child::measure("g.wdl", &src, tier, 1);
        let report = waddle::tooling::run_on_big_stack(run).unwrap();
        assert!(report.ok, "{report:?}");
        let names: Vec<&str> = report
            .phases
            .detail
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        for want in ["parse", "check", "lower", "pass canonicalize", "pass gvn"] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        if tier == Tier::Opt {
            assert!(names.contains(&"codegen emit"), "{names:?}");
        }
    }
}
