//! Terminal tables: one per program (median time, compile time and its
//! phases, code generation per IR instruction, peak memory, ratios to the
//! fastest tier and to C, output check) and a summary of geometric means
//! and of code generation speed per pair of native tiers.

use std::fmt::Write;

use super::report::{BenchReport, ImplKind, ImplResult, ProgramReport};

/// Human-readable seconds.
pub fn fmt_time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn fmt_opt_time(s: Option<f64>) -> String {
    s.map_or_else(|| "-".to_string(), fmt_time)
}

fn fmt_mem(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "-".to_string(),
        |k| format!("{:.1} MiB", k as f64 / 1024.0),
    )
}

fn fmt_ratio(r: Option<f64>) -> String {
    match r {
        None => "-".to_string(),
        Some(r) if r >= 100.0 => format!("{r:.0}"),
        Some(r) if r >= 10.0 => format!("{r:.1}"),
        Some(r) => format!("{r:.2}"),
    }
}

fn status(r: &ImplResult) -> String {
    match (r.ok, r.output_matches) {
        (_, Some(false)) => "OUTPUT MISMATCH".to_string(),
        (true, _) => "ok".to_string(),
        (false, _) => format!(
            "FAILED: {}",
            r.error
                .as_deref()
                .unwrap_or("unknown")
                .lines()
                .next()
                .unwrap_or("")
        ),
    }
}

/// Nanoseconds per IR instruction.
fn fmt_ns(ns: Option<f64>) -> String {
    match ns {
        None => "-".to_string(),
        Some(n) if n >= 100.0 => format!("{n:.0} ns"),
        Some(n) => format!("{n:.1} ns"),
    }
}

/// `auto`'s promotions (with how many of them went from T2 to T3) and
/// OSR entries: `3`, `3+1 osr`, `5 (2 T3)+1 osr`.
fn fmt_tier_ups(t: Option<(u64, u64)>, full: Option<u64>) -> String {
    let Some((p, o)) = t else {
        return "-".to_string();
    };
    let mut s = p.to_string();
    if let Some(f) = full.filter(|&f| f > 0) {
        s += &format!(" ({f} T3)");
    }
    if o > 0 {
        s += &format!("+{o} osr");
    }
    s
}

const HEADER: [&str; 14] = [
    "impl",
    "time",
    "whole",
    "x eager",
    "tier-ups",
    "compile",
    "frontend",
    "passes",
    "codegen",
    "cg/IR inst",
    "peak mem",
    "x best",
    "x C",
    "output",
];

/// The table of one program (`cpu_time`: times are CPU times).
pub fn render_program(p: &ProgramReport, cpu_time: bool) -> String {
    let mut rows: Vec<[String; 14]> = Vec::new();
    for r in &p.results {
        let m = r.median.clone().unwrap_or_default();
        let have = r.median.is_some();
        let compile = match (r.kind, m.compile_s) {
            (_, Some(c)) => fmt_time(c),
            (ImplKind::Reference, None) if r.name == super::report::C_NAME && have => {
                "cached".to_string()
            }
            _ => "-".to_string(),
        };
        rows.push([
            r.name.clone(),
            if have {
                fmt_time(m.time_s)
            } else {
                "-".to_string()
            },
            fmt_opt_time(m.whole_s),
            fmt_ratio(r.whole_to_best_eager),
            fmt_tier_ups(m.tier_ups, m.full_promotions),
            compile,
            fmt_opt_time(m.frontend_s),
            fmt_opt_time(m.passes_s),
            fmt_opt_time(m.codegen_s),
            fmt_ns(m.codegen_ns_per_inst),
            fmt_mem(m.peak_rss_kib),
            fmt_ratio(r.ratio_to_best_tier),
            fmt_ratio(r.ratio_to_c),
            status(r),
        ]);
    }
    let mut widths = HEADER.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let agree = if p.outputs_agree {
        "all outputs agree"
    } else {
        "OUTPUTS DIFFER"
    };
    let first = p
        .expected_output
        .as_deref()
        .map(|o| o.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let basis = if cpu_time { "CPU time" } else { "wall time" };
    let _ = writeln!(
        out,
        "\n{} (n = {}, {basis}): {agree} [{first}]",
        p.name, p.size
    );
    let mut line = |cells: &[String]| {
        let mut s = String::from("  ");
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            let pad = w - cell.chars().count();
            if i == 0 || i == cells.len() - 1 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
            s.push_str("  ");
        }
        let _ = writeln!(out, "{}", s.trim_end());
    };
    line(&HEADER.map(String::from));
    for row in &rows {
        line(row);
    }
    out
}

/// Geometric means and problems, after all programs.
pub fn render_summary(report: &BenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\ngeometric means over the programs ({} run(s) each, median; time = {} of the execution for tiers, of the process for references):",
        report.runs,
        if report.cpu_time { "CPU time" } else { "wall time" }
    );
    let width = report
        .geomeans
        .iter()
        .map(|g| g.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(out, "  {:width$}  {:>8}  {:>9}", "impl", "x C", "x interp");
    for g in &report.geomeans {
        let _ = writeln!(
            out,
            "  {:width$}  {:>8}  {:>9}",
            g.name,
            fmt_ratio(g.ratio_to_c),
            fmt_ratio(g.ratio_to_interp)
        );
    }
    for c in &report.codegen_per_inst {
        let _ = writeln!(
            out,
            "codegen per IR instruction: {} {}, {} {} ({}/{} = {} x; geometric mean over {} program(s))",
            c.first,
            fmt_ns(Some(c.first_ns_per_inst)),
            c.second,
            fmt_ns(Some(c.second_ns_per_inst)),
            c.second,
            c.first,
            fmt_ratio(Some(c.ratio)),
            c.programs
        );
    }
    for n in &report.notes {
        let _ = writeln!(out, "note: {n}");
    }
    for p in &report.programs {
        for r in &p.results {
            if r.output_matches == Some(false) {
                let _ = writeln!(
                    out,
                    "MISMATCH: {} on {} printed something else",
                    p.name, r.name
                );
            }
            if !r.ok {
                let _ = writeln!(
                    out,
                    "FAILED: {} on {}: {}",
                    p.name,
                    r.name,
                    r.error.as_deref().unwrap_or("unknown")
                );
            }
        }
    }
    if report.all_outputs_agree && report.all_ok {
        let _ = writeln!(out, "all outputs agree");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(fmt_time(1.5), "1.500 s");
        assert_eq!(fmt_time(0.0123), "12.3 ms");
        assert_eq!(fmt_time(0.0000123), "12.3 µs");
        assert_eq!(fmt_ratio(Some(123.4)), "123");
        assert_eq!(fmt_ratio(Some(12.34)), "12.3");
        assert_eq!(fmt_ratio(Some(1.234)), "1.23");
        assert_eq!(fmt_mem(Some(2048)), "2.0 MiB");
        assert_eq!(fmt_ns(Some(1234.4)), "1234 ns");
        assert_eq!(fmt_ns(Some(12.34)), "12.3 ns");
        assert_eq!(fmt_ns(None), "-");
        assert_eq!(fmt_tier_ups(None, None), "-");
        assert_eq!(fmt_tier_ups(Some((3, 0)), Some(0)), "3");
        assert_eq!(fmt_tier_ups(Some((3, 1)), None), "3+1 osr");
        assert_eq!(fmt_tier_ups(Some((5, 1)), Some(2)), "5 (2 T3)+1 osr");
    }
}
