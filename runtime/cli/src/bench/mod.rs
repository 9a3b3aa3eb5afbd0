//! `waddle bench`: the harness that compares the execution tiers with each
//! other and with reference implementations in C, Lua 5.4, LuaJIT and Python.
//!
//! The suite lives in `runtime/cli/bench/<name>/` (see its README): each
//! program `<name>.wdl` defines `fn main(n: int)` and ends with the line
//! `main(N);` (the full size); a `// bench: quick=Q` comment gives the tiny
//! size of `--quick`. `<name>.c`, `<name>.lua` and `<name>.py` implement
//! the same algorithm, take the size as their first argument and print the
//! same checksum (`<name>.luajit.lua`, when present, is the Lua version in
//! LuaJIT's Lua 5.1 dialect).
//!
//! Every measurement runs in a fresh child process, so peak memory is per
//! tier: Waddle tiers re-invoke the current executable as
//! `waddle bench --child TIER --size N FILE` ([`child`]), which measures its
//! phases in-process and reports them as one JSON line; references run their
//! interpreter or the cached `cc -O2` binary ([`refs`]). The parent
//! ([`run`]) collects [`report::Measurement`]s, takes medians, checks that
//! every output equals the interpreter's, prints a table ([`table`]), and
//! optionally writes JSON and an SVG chart ([`plot`]).
//!
//! Module map: [`suite`] (finding programs and sizes), [`child`]
//! (in-process measurement), [`process`] (spawning and `wait4` resource
//! usage), [`refs`] (reference toolchains), [`report`] (the result model
//! and JSON), [`table`], [`plot`], [`scaling`] (`--scaling`: compile
//! time against program size, on generated programs), [`doubling`]
//! (`--scaling --doubling`: every compile phase at `N` and `2N`) and [`validate`]
//! (`--validate`: translation validation time against compile time).

pub mod child;
pub mod doubling;
pub mod plot;
pub mod process;
pub mod refs;
pub mod report;
pub mod scaling;
pub mod suite;
pub mod table;
pub mod validate;
pub mod validate_corpus;

use std::path::PathBuf;
use std::time::Duration;

use report::{BenchReport, ImplKind, ImplResult, Measurement, ProgramReport};
use suite::BenchProgram;
use waddle::Tier;

/// Tiers measured when `--tiers` is not given (those this build lacks are
/// skipped with a note).
pub const DEFAULT_TIERS: [Tier; 5] = [
    Tier::Interp,
    Tier::Baseline,
    Tier::Opt,
    Tier::Full,
    Tier::Auto,
];

/// Arguments of `waddle bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Programs to run (directory names in the suite); all when empty. In
    /// `--child` mode: the one `.wdl` file to measure.
    #[arg(value_name = "NAMES")]
    pub names: Vec<String>,
    /// Tiers to measure, comma separated (unavailable ones are skipped).
    #[arg(long, value_delimiter = ',', value_name = "TIER,...")]
    pub tiers: Option<Vec<String>>,
    /// Child processes per (program, tier or reference); the median counts.
    #[arg(long, default_value_t = 3, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Print the results as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also write a chart of the run-time ratios to C (SVG).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Skip the C, Lua, LuaJIT and Python references.
    #[arg(long)]
    pub no_ref: bool,
    /// Run only these references, comma separated (`C`, `lua5.4`,
    /// `luajit`, `python3`); all that are installed when not given.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "REF,...",
        conflicts_with = "no_ref"
    )]
    pub refs: Option<Vec<String>>,
    /// Use each program's tiny size (for tests and smoke runs).
    #[arg(long)]
    pub quick: bool,
    /// Compare CPU time (user + system) instead of wall time: steadier on a
    /// loaded machine.
    #[arg(long)]
    pub cpu: bool,
    /// The suite directory (default: the `bench/` directory of the
    /// runtime crate, else `./runtime/cli/bench` or `./bench`).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Measure how compile time grows with program size instead (generated
    /// programs; NAMES selects shapes: locals, branches, funcs, params,
    /// loopvars).
    #[arg(long)]
    pub scaling: bool,
    /// Measure translation validation time against compile time instead
    /// (in this process, `-O2`; prints validated functions and the ratio).
    #[arg(long)]
    pub validate: bool,
    /// With `--validate`: measure the lang-test corpus instead of the
    /// suite (every `.wdl` under `--dir`, default
    /// `lang-tests/tests/programs`; NAMES filters by path), and print the
    /// validated % per pass and every function that does not validate
    /// with the reason; `--tiers opt,full` selects the pipelines (T2's
    /// `-O2`, T3's with the VSDG round trip; default `opt`).
    #[arg(long, requires = "validate")]
    pub corpus: bool,
    /// With `--scaling`: compile each shape at `N` and `2N` only and print
    /// every phase (parse, check, lower, each pass, codegen) with its
    /// ratio `t(2N)/t(N)`; the best of `--runs` alternating runs counts.
    #[arg(long, requires = "scaling")]
    pub doubling: bool,
    /// With `--doubling`: `N` for every shape (default: a size per shape).
    #[arg(long, requires = "doubling", value_name = "N")]
    pub at: Option<usize>,
    /// Time limit per `--scaling` measurement, in seconds of CPU time (a
    /// child is also stopped after four times as much wall time).
    #[arg(long, default_value_t = 120, value_name = "SECS")]
    pub timeout: u64,
    /// Internal: measure one program on TIER in this process.
    #[arg(long, hide = true, value_name = "TIER")]
    pub child: Option<String>,
    /// Internal: the problem size passed to `main` in `--child` mode.
    #[arg(long, hide = true, value_name = "N")]
    pub size: Option<i64>,
}

/// Runs `waddle bench`; returns the exit status (0 when every measurement
/// succeeded and every output agreed, 1 otherwise).
pub fn main(args: BenchArgs) -> i32 {
    if let Some(tier) = &args.child {
        return child::main(tier, &args);
    }
    if args.scaling {
        return match run_scaling(&args) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(msg) => {
                eprintln!("error: {msg}");
                1
            }
        };
    }
    if args.validate {
        let done = if args.corpus {
            validate_corpus::run(&args)
        } else {
            suite::find_dir(args.dir.as_deref())
                .and_then(|dir| suite::select(&dir, &args.names))
                .and_then(|programs| validate::run(&programs, &args))
        };
        return match done {
            Ok(()) => 0,
            Err(msg) => {
                eprintln!("error: {msg}");
                1
            }
        };
    }
    match run(&args) {
        Ok(report) => {
            if report.all_outputs_agree && report.all_ok {
                0
            } else {
                1
            }
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            1
        }
    }
}

/// Measures the selected programs and prints the results; `Err` for a bad
/// invocation (unknown program or tier, missing suite, unwritable plot).
pub fn run(args: &BenchArgs) -> Result<BenchReport, String> {
    let dir = suite::find_dir(args.dir.as_deref())?;
    let programs = suite::select(&dir, &args.names)?;
    let mut notes = Vec::new();
    let tiers = select_tiers(args.tiers.as_deref(), &mut notes)?;
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the waddle executable: {e}"))?;
    let toolchains = if args.no_ref {
        refs::Toolchains::none()
    } else {
        let mut found = refs::Toolchains::detect(&mut notes);
        if let Some(names) = &args.refs {
            found.keep_only(names)?;
        }
        found
    };
    if let Some(dir) = args.plot.as_deref().and_then(std::path::Path::parent) {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(format!(
                "cannot write the plot: directory `{}` does not exist",
                dir.display()
            ));
        }
    }
    let mut reports = Vec::new();
    for program in &programs {
        let size = if args.quick {
            program.quick_size
        } else {
            program.size
        };
        if !args.json {
            eprintln!("running {} (n = {size}) ...", program.name);
        }
        let report = measure_program(program, size, &tiers, &toolchains, &exe, args);
        if !args.json {
            print!("{}", table::render_program(&report, args.cpu));
        }
        reports.push(report);
    }
    let report = BenchReport::new(
        args.quick,
        args.cpu,
        args.runs,
        tiers.iter().map(|t| t.name().to_string()).collect(),
        toolchains.describe(),
        notes,
        reports,
    );
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", table::render_summary(&report));
    }
    if let Some(path) = &args.plot {
        plot::write_svg(&report, path)?;
        if !args.json {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(report)
}

/// `--scaling`: the generated programs on the selected tiers; whether
/// every run succeeded.
fn run_scaling(args: &BenchArgs) -> Result<bool, String> {
    let shapes = scaling::select(&args.names)?;
    let mut notes = Vec::new();
    let tiers = select_tiers(args.tiers.as_deref(), &mut notes)?;
    for n in &notes {
        eprintln!("note: {n}");
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the waddle executable: {e}"))?;
    let limit = Duration::from_secs(args.timeout.max(1));
    if args.doubling {
        return doubling::run(&exe, &shapes, &tiers, args.at, args.runs, limit);
    }
    scaling::run(&exe, &shapes, &tiers, args.quick, limit)
}

/// The requested tiers that this build can run; notes the skipped ones.
fn select_tiers(
    requested: Option<&[String]>,
    notes: &mut Vec<String>,
) -> Result<Vec<Tier>, String> {
    let wanted: Vec<Tier> = match requested {
        None => DEFAULT_TIERS.to_vec(),
        Some(names) => names
            .iter()
            .map(|n| n.parse::<Tier>())
            .collect::<Result<_, _>>()?,
    };
    let mut tiers = Vec::new();
    for t in wanted {
        if tiers.contains(&t) {
            continue;
        }
        if waddle::tooling::check_tier(t).is_ok() {
            tiers.push(t);
        } else {
            notes.push(format!(
                "tier `{t}` is not available in this build: skipped"
            ));
        }
    }
    if tiers.is_empty() {
        return Err("none of the requested tiers is available in this build".to_string());
    }
    Ok(tiers)
}

/// Runs every tier and reference on one program and checks the outputs.
///
/// The runs are interleaved: round `k` runs every implementation once, so a
/// burst of load on a shared machine falls on all of them alike instead of
/// on whichever one was running (the median of each is then comparable).
fn measure_program(
    program: &BenchProgram,
    size: i64,
    tiers: &[Tier],
    toolchains: &refs::Toolchains,
    exe: &std::path::Path,
    args: &BenchArgs,
) -> ProgramReport {
    let (runs, cpu) = (args.runs, args.cpu);
    let references: Vec<_> = toolchains
        .for_program(program)
        .into_iter()
        .map(|r| {
            let prepared = r.prepare();
            (r, prepared)
        })
        .collect();
    let mut tier_runs: Vec<Vec<Measurement>> = tiers.iter().map(|_| Vec::new()).collect();
    let mut ref_runs: Vec<Vec<Measurement>> = references.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for (k, &tier) in tiers.iter().enumerate() {
            tier_runs[k].push(child::spawn(exe, tier, &program.wdl, size, cpu));
        }
        for (k, (_, prepared)) in references.iter().enumerate() {
            if let Ok(prepared) = prepared {
                ref_runs[k].push(prepared.run(size, cpu));
            }
        }
    }
    let mut results = Vec::new();
    for (&tier, measured) in tiers.iter().zip(tier_runs) {
        results.push(ImplResult::from_runs(
            tier.name().to_string(),
            ImplKind::Tier,
            None,
            measured,
        ));
    }
    for ((reference, prepared), measured) in references.into_iter().zip(ref_runs) {
        results.push(match prepared {
            Ok(prepared) => ImplResult::from_runs(
                reference.label(),
                ImplKind::Reference,
                prepared.compile_time,
                measured,
            ),
            Err(msg) => ImplResult::failed(reference.label(), ImplKind::Reference, msg),
        });
    }
    ProgramReport::new(program.name.clone(), size, results)
}

/// Seconds as `f64` (the unit of every JSON time field).
pub(crate) fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}
