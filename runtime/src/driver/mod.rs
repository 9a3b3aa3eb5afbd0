//! Running a whole program from source, as `waddle run` does, with its
//! output captured: used by the CLI and the lang-test runner.

use crate::api::{Config, Engine, Module, Store};
use crate::error::Error;
use crate::output::OutputSink;
use crate::Tier;

/// What to run and how.
#[derive(Clone, PartialEq, Debug)]
pub struct RunOptions {
    /// Which tier executes the program.
    pub tier: Tier,
    /// Optimization level 0, 1 or 2.
    pub opt_level: u8,
    /// Explicit pass list (overrides `opt_level`), e.g. `["sccp", "dce"]`.
    pub passes: Option<Vec<String>>,
    /// Execution budget; `None` for unlimited.
    pub fuel: Option<u64>,
    /// Heap limit in bytes (`waddle run --memory-limit`); `None`: what the
    /// system allows.
    pub memory_limit: Option<usize>,
    /// Whether `extern` declarations (FFI) are allowed (`--allow-ffi`).
    pub allow_ffi: bool,
    /// `auto`'s chaos mode (`--tier-chaos SEED`): promotion points and
    /// tiers picked pseudo-randomly from the seed.
    pub tier_chaos: Option<u64>,
    /// `auto`'s thresholds (`--tier-thresholds`); `None`: the defaults.
    pub tier_thresholds: Option<crate::TierThresholds>,
    /// Compile `auto`'s promotions on the running thread (`--jit-sync`).
    pub jit_sync: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            tier: Tier::Interp,
            opt_level: 0,
            passes: None,
            fuel: None,
            memory_limit: None,
            allow_ffi: false,
            tier_chaos: None,
            tier_thresholds: None,
            jit_sync: false,
        }
    }
}

/// What a run produced: exactly what `waddle run` writes and its exit code.
#[derive(Clone, PartialEq, Debug)]
pub struct RunOutcome {
    /// Standard output bytes.
    pub stdout: Vec<u8>,
    /// Standard error text (diagnostics or the runtime error).
    pub stderr: String,
    /// 0 success, 1 compile error (or unavailable tier), 2 runtime error.
    pub exit_code: i32,
}

/// Compiles and runs `source` (named `file_name` in messages) with output
/// captured in memory.
///
/// The result is exactly what `waddle run` would print: stdout holds
/// everything printed before an error, stderr the rendered diagnostics or
/// runtime error, and the exit code is 0, 1 (compile error, unavailable
/// tier, bad pass list) or 2 (runtime error). Runs on a thread with a large
/// stack, so deep (but budgeted) recursion works from any caller thread.
pub fn run_source(file_name: &str, source: &str, options: &RunOptions) -> RunOutcome {
    run_on_big_stack(|| run_captured(file_name, source, options)).unwrap_or_else(|msg| RunOutcome {
        stdout: Vec::new(),
        stderr: format!("error: internal error: {msg}\n"),
        exit_code: 2,
    })
}

fn run_captured(file_name: &str, source: &str, options: &RunOptions) -> RunOutcome {
    let failed = |stdout: Vec<u8>, e: Error| RunOutcome {
        stdout,
        stderr: e.render(),
        exit_code: e.exit_code(),
    };
    let mut config = Config::new()
        .tier(options.tier)
        .opt_level(options.opt_level)
        .memory_limit(options.memory_limit)
        // Native code counts fuel only when there is a budget to enforce.
        .interruptible(options.fuel.is_some());
    config.passes = options.passes.clone();
    config.allow_ffi = options.allow_ffi;
    config.tiering.chaos = options.tier_chaos;
    if let Some(t) = options.tier_thresholds {
        config.tiering.thresholds = t;
    }
    config.tiering.sync = options.jit_sync;
    let engine = match Engine::new(&config) {
        Ok(e) => e,
        Err(e) => return failed(Vec::new(), e),
    };
    let module = match Module::new(&engine, file_name, source) {
        Ok(m) => m,
        Err(e) => return failed(Vec::new(), e),
    };
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    if let Err(e) = store.set_fuel(options.fuel) {
        return failed(Vec::new(), e);
    }
    let result = store.instantiate(&module);
    let stdout = store.take_output();
    match result {
        Ok(_) => RunOutcome {
            stdout,
            stderr: String::new(),
            exit_code: 0,
        },
        Err(e) => failed(stdout, e),
    }
}

/// Stack size of the threads that run Waddle code for the CLI and
/// [`run_source`]: room for the default stack budget plus the runtime's own
/// frames (only touched pages cost memory).
pub const RUN_STACK_SIZE: usize = 1 << 30;

/// Runs `f` on a fresh thread with a [`RUN_STACK_SIZE`] stack and returns
/// its result; `Err` with the panic message if it panicked or no thread
/// could be started.
pub fn run_on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("waddle".to_string())
            .stack_size(RUN_STACK_SIZE)
            .spawn_scoped(scope, f)
        {
            Ok(handle) => handle.join().map_err(panic_message),
            Err(_) => Err("could not start the execution thread".to_string()),
        }
    })
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

#[cfg(test)]
mod tests;
