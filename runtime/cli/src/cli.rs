//! The `waddle` command line (clap derive): `waddle run FILE` with tier,
//! optimization, pass and emit options; `waddle` alone starts the REPL.
//!
//! Exit status: 0 success, 1 compile error / bad invocation / unreadable
//! file / unavailable tier, 2 runtime error (docs/language.md "Errors").

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use waddle::tooling::{compile_source_with_ffi, run_on_big_stack, OptOptions};
use waddle::{
    Config, Engine, Error, Module, OutputSink, PassLog, PassTrace, Store, Tier, TierHook,
    TierOptions, TierThresholds, Validation,
};

/// The Waddle JIT compiler runtime.
#[derive(Parser, Debug)]
#[command(name = "waddle", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command the REPL starts.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compile and run a Waddle program.
    Run(RunArgs),
    /// Start the interactive REPL (the default).
    Repl(TierArgs),
    /// Benchmark the tiers against each other and C, Lua, LuaJIT and Python.
    Bench(crate::bench::BenchArgs),
}

/// Tier selection and what scripts may do.
#[derive(clap::Args, Debug)]
pub struct TierArgs {
    /// Execution tier.
    #[arg(long, value_enum, default_value_t = TierArg::Auto)]
    pub tier: TierArg,
    /// Optimization level: -O0, -O1 or -O2.
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=2))]
    pub opt_level: u8,
    /// Let scripts declare and call C functions (`extern "lib" fn ...;`).
    #[arg(long)]
    pub allow_ffi: bool,
    /// When `auto` promotes a function from the interpreter: after CALLS
    /// calls (functions without a loop) or LOOPS loop back edges, when the
    /// running loop continues in compiled code (on-stack replacement; 0:
    /// functions with a loop compile before their first run); and from T2
    /// to T3 (`full`) after FULL calls or loop back edges in its T2 code
    /// (0: never; default 10000).
    #[arg(long, value_name = "CALLS,LOOPS[,FULL]", default_value_t = TierThresholds::default())]
    pub tier_thresholds: TierThresholds,
    /// Compile promotions at once on the running thread instead of on the
    /// background compiler thread (deterministic, for tests and timing).
    #[arg(long)]
    pub jit_sync: bool,
    /// Print every promotion (function, tiers, compile time, code size) to
    /// standard error.
    #[arg(long)]
    pub trace_tiers: bool,
    /// Chaos mode for testing: promotion points and tiers picked
    /// pseudo-randomly from SEED (functions run on mixed tiers).
    #[arg(long, value_name = "SEED")]
    pub tier_chaos: Option<u64>,
}

impl TierArgs {
    /// The tiering options these arguments ask for.
    pub fn tiering(&self) -> TierOptions {
        let hook = self.trace_tiers.then(|| {
            TierHook(std::sync::Arc::new(|e: &waddle::TierEvent| {
                eprintln!("{e}");
            }))
        });
        TierOptions {
            thresholds: self.tier_thresholds,
            sync: self.jit_sync,
            hook,
            chaos: self.tier_chaos,
        }
    }
}

/// Arguments of `waddle run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Tier and optimization level.
    #[command(flatten)]
    pub tier: TierArgs,
    /// Run exactly these passes (comma separated) instead of the -O pipeline.
    #[arg(long, value_delimiter = ',', value_name = "PASS,...")]
    pub passes: Option<Vec<String>>,
    /// Print an intermediate form instead of running.
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Print the time of every optimization pass (to standard error).
    #[arg(long)]
    pub time_passes: bool,
    /// Print every function after this pass (to standard error); repeat or
    /// separate with commas for several passes.
    #[arg(long, value_delimiter = ',', value_name = "PASS")]
    pub print_after: Vec<String>,
    /// Validate every optimized function against the unoptimized one and
    /// print `validated N of M functions` and each alarm (to standard
    /// error); `guard` also keeps a function that does not validate
    /// unoptimized (validated tier-up).
    #[arg(
        long,
        value_enum,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "report",
        value_name = "MODE"
    )]
    pub validate: Option<ValidateArg>,
    /// Execution budget: stop with `out of fuel` after this many units.
    #[arg(long, value_name = "N")]
    pub fuel: Option<u64>,
    /// Heap limit in bytes: allocating beyond it is `out of memory`.
    #[arg(long, value_name = "BYTES")]
    pub memory_limit: Option<usize>,
    /// Where the program runs: this machine, or AArch64 under qemu-aarch64.
    #[arg(long, value_enum, default_value_t = TargetArg::Host)]
    pub target: TargetArg,
    /// The program.
    pub file: PathBuf,
}

/// `--tier` values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// T0: the IR interpreter.
    Interp,
    /// T1: the baseline JIT.
    Baseline,
    /// T2: the optimizing JIT.
    Opt,
    /// T3: optimizing JIT with the VSDG round trip.
    Full,
    /// Tiering controller.
    Auto,
}

impl From<TierArg> for Tier {
    fn from(t: TierArg) -> Tier {
        match t {
            TierArg::Interp => Tier::Interp,
            TierArg::Baseline => Tier::Baseline,
            TierArg::Opt => Tier::Opt,
            TierArg::Full => Tier::Full,
            TierArg::Auto => Tier::Auto,
        }
    }
}

/// `--validate` values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ValidateArg {
    /// Validate and report.
    Report,
    /// Validate, report, and keep functions that do not validate unoptimized.
    Guard,
}

/// `--target` values.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// This machine.
    #[default]
    Host,
    /// AArch64 Linux, run under qemu-aarch64.
    Aarch64,
}

/// `--emit` values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The parsed syntax tree.
    Ast,
    /// Waddle IR before optimization.
    Ir,
    /// Waddle IR after the pass pipeline.
    OptIr,
    /// The VSDG of every function after the `-O` passes (Graphviz DOT,
    /// regions as clusters), as tier `full` lifts it.
    Vsdg,
    /// The machine code of every function as `waddle run` with the same
    /// `--tier`, `-O`, `--passes` and `--fuel` compiles it (disassembled;
    /// host target only).
    Asm,
}

/// Parses the process arguments and runs; returns the exit status.
pub fn main_with_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        None => repl(TierArgs {
            tier: TierArg::Auto,
            opt_level: 2,
            allow_ffi: false,
            tier_thresholds: TierThresholds::default(),
            jit_sync: false,
            trace_tiers: false,
            tier_chaos: None,
        }),
        Some(Command::Repl(t)) => repl(t),
        Some(Command::Run(args)) => run(args),
        Some(Command::Bench(args)) => crate::bench::main(args),
    }
}

fn repl(t: TierArgs) -> i32 {
    let config = waddle::Config::new()
        .tier(t.tier.into())
        .opt_level(t.opt_level)
        .allow_ffi(t.allow_ffi)
        .tiering(t.tiering());
    run_on_big_stack(|| crate::repl::run_interactive(config)).unwrap_or_else(|msg| {
        eprintln!("error: internal error: {msg}");
        2
    })
}

fn run(args: RunArgs) -> i32 {
    let name = args.file.display().to_string();
    let source = match read_source(&args.file) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => {
                eprintln!("error: `{name}` is not valid UTF-8");
                return 1;
            }
        },
        Err(e) => {
            eprintln!("error: cannot read `{name}`: {e}");
            return 1;
        }
    };
    if args.target == TargetArg::Aarch64 && args.emit == Some(Emit::Asm) {
        eprintln!("error: --emit asm shows this machine's code; it has no --target aarch64 form");
        return 1;
    }
    if args.target == TargetArg::Aarch64 && args.emit.is_none() {
        return run_aarch64(&name, &source, &args);
    }
    let outcome = run_on_big_stack(|| match args.emit {
        Some(emit) => emit_form(&name, &source, emit, &args),
        None => run_program(&name, &source, &args),
    });
    let result = outcome.unwrap_or_else(|msg| Err(Error::Internal(msg)));
    let _ = std::io::stdout().flush();
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprint!("{}", e.render());
            e.exit_code()
        }
    }
}

/// Reads a source file, refusing one larger than
/// [`waddle_frontend::MAX_SOURCE_BYTES`] after reading at most one byte past
/// the limit (`/dev/zero` or a pipe that never ends cannot make it grow).
fn read_source(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let limit = waddle_frontend::MAX_SOURCE_BYTES;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(std::io::Error::other(format!(
            "the file is larger than the source size limit of {} MiB",
            limit >> 20
        )));
    }
    Ok(bytes)
}

/// The optimizer diagnostics `args` ask for.
fn trace(args: &RunArgs) -> PassTrace {
    PassTrace {
        time: args.time_passes,
        print_after: args.print_after.clone(),
        validate: match args.validate {
            None => Validation::Off,
            Some(ValidateArg::Report) => Validation::Report,
            Some(ValidateArg::Guard) => Validation::Guard,
        },
    }
}

/// Writes the optimizer diagnostics to standard error.
fn print_pass_log(log: &PassLog) {
    let _ = std::io::stdout().flush();
    eprint!("{}", log.render());
}

/// The engine settings `waddle run` uses for `args`.
fn run_config(args: &RunArgs) -> Config {
    let mut config = Config::new()
        .tier(args.tier.tier.into())
        .opt_level(args.tier.opt_level)
        .memory_limit(args.memory_limit)
        // Native code counts fuel only when there is a budget to enforce.
        .interruptible(args.fuel.is_some());
    config.passes = args.passes.clone();
    config.allow_ffi = args.tier.allow_ffi;
    config.tiering = args.tier.tiering();
    config.trace = trace(args);
    config
}

fn run_program(name: &str, source: &str, args: &RunArgs) -> Result<(), Error> {
    let engine = Engine::new(&run_config(args))?;
    let module = Module::new(&engine, name, source)?;
    let mut store = Store::with_output(&engine, OutputSink::Stdout);
    store.set_fuel(args.fuel)?;
    let result = store.instantiate(&module).map(drop);
    store.flush_output();
    print_pass_log(module.pass_log());
    result
}

fn emit_form(name: &str, source: &str, emit: Emit, args: &RunArgs) -> Result<(), Error> {
    waddle::tooling::check_tier(args.tier.tier.into())?;
    let opt = OptOptions {
        vsdg: args.tier.tier == TierArg::Full,
        opt_level: args.tier.opt_level,
        passes: args.passes.clone(),
        trace: trace(args),
    };
    let text = match emit {
        Emit::Ast => waddle::tooling::emit_ast(name, source)?,
        Emit::Ir => {
            let ffi = args.tier.allow_ffi;
            let c = compile_source_with_ffi(name, source, ffi, &OptOptions::default())?;
            waddle::tooling::print_program(&c.frontend.program)
        }
        Emit::OptIr => {
            let c = compile_source_with_ffi(name, source, args.tier.allow_ffi, &opt)?;
            print_pass_log(&c.log);
            waddle::tooling::print_program(&c.optimized)
        }
        Emit::Asm => {
            let module = Module::new(&Engine::new(&run_config(args))?, name, source)?;
            print_pass_log(module.pass_log());
            waddle::tooling::emit_asm(&module)?
        }
        Emit::Vsdg => {
            // The graph the round trip starts from: the level pipeline's output.
            let opt = OptOptions { vsdg: false, ..opt };
            let c = compile_source_with_ffi(name, source, args.tier.allow_ffi, &opt)?;
            print_pass_log(&c.log);
            waddle::tooling::print_vsdg(&c.optimized)
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    Ok(())
}

/// `waddle run --target aarch64 ...`: runs, writing the program's output
/// as it arrives; returns the exit code.
fn run_aarch64(file_name: &str, source: &str, args: &RunArgs) -> i32 {
    let options = waddle::cross::CrossOptions {
        tier: args.tier.tier.into(),
        opt_level: args.tier.opt_level,
        passes: args.passes.clone(),
        fuel: args.fuel,
        memory_limit: args.memory_limit.map(|m| m as u64),
        gc_stress: false,
        trace: trace(args),
        allow_ffi: args.tier.allow_ffi,
    };
    let terminal = std::io::stdout().is_terminal();
    let result = run_on_big_stack(|| {
        let mut stdout = std::io::stdout().lock();
        let mut broken = false;
        let (stderr, code) =
            waddle::cross::run_streaming(file_name, source, &options, terminal, &mut |bytes| {
                // After a failed write (a closed pipe) the output is dropped.
                if !broken {
                    broken =
                        stdout.write_all(bytes).is_err() || (terminal && stdout.flush().is_err());
                }
            });
        let _ = stdout.flush();
        (stderr, code)
    });
    let (stderr, code) =
        result.unwrap_or_else(|msg| (format!("error: internal error: {msg}\n"), 2));
    eprint!("{stderr}");
    code
}
