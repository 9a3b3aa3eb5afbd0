//! `--plot FILE`: an SVG chart (plotters, SVG backend) of every
//! implementation's run time relative to C, one group of bars per program
//! on a logarithmic axis (a bar below the line at 1 is faster than C).
//! Without a C column the baseline is the fastest Waddle tier instead.

use std::path::Path;

use plotters::prelude::*;

use super::report::{BenchReport, ImplKind, C_NAME};

/// What the bars are relative to.
fn baseline_name(report: &BenchReport) -> &'static str {
    let has_c = report
        .programs
        .iter()
        .any(|p| p.result(C_NAME).and_then(|r| r.time()).is_some());
    if has_c {
        C_NAME
    } else {
        "the fastest tier"
    }
}

/// `(implementation, per-program ratio)` series in drawing order: tiers
/// first, then references; the baseline itself is left out.
fn series(report: &BenchReport, to_c: bool) -> Vec<(String, Vec<Option<f64>>)> {
    let mut names: Vec<(String, ImplKind)> = Vec::new();
    for p in &report.programs {
        for r in &p.results {
            let is_baseline = to_c && r.name == C_NAME;
            if !is_baseline && !names.iter().any(|(n, _)| *n == r.name) {
                names.push((r.name.clone(), r.kind));
            }
        }
    }
    names.sort_by_key(|(_, k)| *k == ImplKind::Reference);
    names
        .into_iter()
        .map(|(name, _)| {
            let ratios = report
                .programs
                .iter()
                .map(|p| {
                    let r = p.result(&name)?;
                    let ratio = if to_c {
                        r.ratio_to_c
                    } else {
                        r.ratio_to_best_tier
                    };
                    ratio.filter(|x| x.is_finite() && *x > 0.0)
                })
                .collect();
            (name, ratios)
        })
        .collect()
}

/// Writes the chart to `path`.
pub fn write_svg(report: &BenchReport, path: &Path) -> Result<(), String> {
    draw(report, path).map_err(|e| format!("cannot write the plot `{}`: {e}", path.display()))
}

fn draw(report: &BenchReport, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let base = baseline_name(report);
    let series = series(report, base == C_NAME);
    let n = report.programs.len().max(1);
    let all: Vec<f64> = series
        .iter()
        .flat_map(|(_, r)| r.iter().flatten().copied())
        .collect();
    let lo = all.iter().copied().fold(1.0f64, f64::min);
    let hi = all.iter().copied().fold(1.0f64, f64::max);
    // Headroom above the tallest bar keeps the legend clear of the bars.
    let (ymin, ymax) = (lo / 1.5, hi * 8.0);
    let width = (160 + 90 * n as u32).max(640);
    let root = SVGBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let caption = format!(
        "run time relative to {base} (log scale; lower is faster){}",
        if report.quick { ", --quick sizes" } else { "" }
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), (ymin..ymax).log_scale())?;
    let names: Vec<String> = report.programs.iter().map(|p| p.name.clone()).collect();
    let label = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&label)
        .y_desc(format!("time / {base}"))
        .draw()?;
    chart.draw_series(LineSeries::new(
        [(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
        BLACK.stroke_width(1),
    ))?;
    let k = series.len().max(1) as f64;
    let bar = 0.8 / k;
    for (s, (name, ratios)) in series.iter().enumerate() {
        let color = Palette99::pick(s).to_rgba();
        let bars = ratios.iter().enumerate().filter_map(|(i, r)| {
            let r = (*r)?;
            let x0 = i as f64 - 0.4 + s as f64 * bar;
            Some(Rectangle::new(
                [(x0, ymin), (x0 + bar * 0.9, r)],
                color.filled(),
            ))
        });
        chart
            .draw_series(bars)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.85))
        .draw()?;
    root.present()?;
    Ok(())
}
