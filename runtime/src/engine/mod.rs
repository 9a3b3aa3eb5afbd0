//! The compile-and-run pieces behind the embedding API, and [`Session`]:
//! the incremental session the REPL runs on.
//!
//! A [`Session`] is built over a [`crate::Engine`] (configuration, tier,
//! host functions) and owns a [`crate::Store`] (heap, globals, output,
//! fuel, interrupts, limits):
//! - [`Session::eval`] adds one REPL-style entry: functions and globals it
//!   declares persist, redefinitions replace earlier functions, its
//!   top-level code runs once; [`Session::run`] runs a whole program;
//! - [`Session::eval_expr`] / [`Session::eval_as`] evaluate an expression
//!   to a value;
//! - [`Session::call`] (dynamic, [`Val`]s) and [`Session::call_typed`]
//!   call functions by name;
//! - inspection for the REPL: [`Session::functions`],
//!   [`Session::globals`], [`Session::function_ir`],
//!   [`Session::function_opt_ir`], [`Session::function_tier`].
//!
//! Errors come back as [`Error`]; no panic escapes: execution and
//! compilation run under `catch_unwind` and a panic becomes
//! [`Error::Internal`].
//!
//! Tiers ([`crate::Config::tier`], [`Session::set_tier`]): `interp` runs
//! everything on the IR interpreter; `opt` compiles every function with the
//! Cranelift tier (T2) before it runs; `auto` (the default) does the same
//! except for cold top-level code (policy and its invariant: the `tiering`
//! module). Native code lives in per-entry compilation units linked through
//! entry slots; a redefinition swaps the slots and frees code nothing can
//! run any more (the `native` module). Runtime errors in compiled code come
//! back as [`Error::Runtime`] with the interpreter's message and location;
//! a panic in the host while compiled code runs is carried out of the
//! compiled frames and reported as [`Error::Internal`].
//!
//! Compiled code runs on the calling thread's stack (the interpreter on its
//! own): the stack limit ([`crate::Store::set_stack_limit`]) counts native
//! frames, and where the thread's stack is smaller than the limit (known on
//! Linux) deep recursion stops earlier with `stack overflow` rather than
//! crashing. Call into a session from a thread with a generous stack to get
//! the full budget (the CLI uses [`crate::driver::run_on_big_stack`]).
//!
//! With the crate's `tooling` feature (the CLI's `--emit` and benchmark
//! harness) this module also exports the compiler entry points that take
//! or return Waddle IR: `compile_source`, `compile_source_with_ffi`,
//! `optimize`, `CompiledIr`, `print_program`, `print_vsdg`, `emit_ast`.

pub(crate) mod backend;
mod compile;
mod compiler;
pub(crate) mod exec;
mod host_api;
mod link;
pub(crate) mod native;
pub(crate) mod tiering;
pub(crate) mod val;

#[cfg(feature = "cross")]
pub(crate) use compile::compile_with_options;
#[cfg(feature = "cross")]
pub(crate) use compile::error_at;
pub use compile::{check_passes, OptOptions, PassLog, PassTrace, Validation, ValidationLog};
pub(crate) use compile::{compile_program, panic_error, CompiledProgram};
#[cfg(feature = "tooling")]
pub use compile::{compile_source, compile_source_with_ffi, optimize, CompiledIr};
pub(crate) use host_api::check_host_name;
pub use host_api::HostFunctionInfo;
pub use val::{Args, FromVal, IntoVal, Val};

use std::panic::{catch_unwind, AssertUnwindSafe};

use cranelift_entity::EntityRef;

use waddle_frontend::{Prelude, PreludeGlobal};
use waddle_opt::abi::Word;
use waddle_opt::ir::{FuncId, Program};

use crate::api::Store;
use crate::error::{Error, RuntimeError};
use crate::heap::HeapStats;
use crate::output::OutputSink;
use crate::types::{FuncType, ValType};
use crate::Tier;
use exec::Executor;
pub use tiering::{TierEvent, TierHook, TierOptions, TierThresholds};

/// Native code a session holds (see [`Session::native_code`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
#[non_exhaustive]
pub struct NativeCodeStats {
    /// Live compilation units.
    pub units: usize,
    /// Bytes of machine code in them.
    pub bytes: usize,
}

/// Name of the hidden global [`Session::eval_expr`] stores its result in.
const EVAL_GLOBAL: &str = "__waddle_eval_result";

/// A function of the session's program.
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub struct FunctionInfo {
    /// Name.
    pub name: String,
    /// Parameter and result types.
    pub sig: FuncType,
    /// The tier that runs it now.
    pub tier: Tier,
}

/// A global of the session's program.
#[derive(Clone, PartialEq, Debug)]
#[non_exhaustive]
pub struct GlobalInfo {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: ValType,
}

/// An incremental session over a [`Store`] (the REPL's engine): compiles
/// entries one after another into one growing program, with the
/// [`crate::Engine`]'s configuration and host functions, keeps their
/// functions and globals, replaces redefined functions, and runs code in
/// the store's heap with the store's limits. For compile-once,
/// run-in-many-stores embedding use [`crate::Module`] and
/// [`crate::Store::instantiate`].
///
/// ```
/// use waddle::{Engine, OutputSink, Session};
/// let engine = Engine::default();
/// let mut session = Session::with_output(&engine, OutputSink::Capture);
/// session.eval("fn add(a: int, b: int) -> int { return a + b; }")?;
/// session.eval("add(1, 2)")?;
/// assert_eq!(session.store_mut().take_output(), b"3\n");
/// # Ok::<(), waddle::Error>(())
/// ```
pub struct Session {
    /// Configuration and the host functions every entry sees.
    engine: crate::api::Engine,
    /// The engine's host functions as last copied into the store's table
    /// (to copy only what was registered or replaced since).
    synced_host_fns: Vec<std::sync::Arc<crate::hostfn::HostFn>>,
    /// The tier for code compiled from now on ([`Session::set_tier`]).
    tier: Tier,
    opt: OptOptions,
    /// What the optimizer reported so far ([`crate::Config::trace`]).
    pass_log: PassLog,
    /// The linked program, optimized.
    program: Program,
    /// The same functions before optimization (for `:ir`).
    source_ir: Program,
    /// Per global of `program`: `true` for `var` (what later REPL entries
    /// may assign).
    global_mutable: Vec<bool>,
    /// Heap, globals, output, fuel, interrupts and limits.
    store: Store,
    exec: Option<Executor>,
    entries: usize,
    /// Per function index: its `-O` pipeline included the VSDG round trip
    /// (it was compiled while the tier was `full`). The others go through
    /// it when they are installed on T3 (pinned to `full`, after
    /// `set_tier(Full)`, or promoted by `auto`).
    vsdg_done: Vec<bool>,
}

impl Default for Session {
    /// A session over [`crate::Engine::default`], printing to stdout.
    fn default() -> Self {
        Session::new(&crate::api::Engine::default())
    }
}

impl Session {
    /// A session over `engine` (its configuration, tier and host
    /// functions) in a fresh store printing to standard output.
    pub fn new(engine: &crate::api::Engine) -> Session {
        Session::with_output(engine, OutputSink::Stdout)
    }

    /// A session over `engine` in a fresh store whose `print` output goes
    /// to `sink`.
    pub fn with_output(engine: &crate::api::Engine, sink: OutputSink) -> Session {
        let config = engine.config();
        let mut store = Store::with_output(engine, sink);
        store.runtime.hostfns.allow_ffi = config.allow_ffi;
        let mut session = Session {
            engine: engine.clone(),
            synced_host_fns: Vec::new(),
            tier: config.tier,
            opt: engine.opt().clone(),
            pass_log: PassLog::default(),
            program: Program::default(),
            source_ir: Program::default(),
            global_mutable: Vec::new(),
            store,
            exec: None,
            entries: 0,
            vsdg_done: Vec::new(),
        };
        session.sync_host_fns();
        session
    }

    /// A session over a new engine built from `config` (see
    /// [`crate::Engine::new`] for what it checks), printing to `sink`.
    pub fn with_config(config: &crate::api::Config, sink: OutputSink) -> Result<Session, Error> {
        let engine = crate::api::Engine::new(config)?;
        Ok(Session::with_output(&engine, sink))
    }

    /// The engine the session compiles with.
    pub fn engine(&self) -> &crate::api::Engine {
        &self.engine
    }

    /// The store the session runs in (heap, output, fuel, limits).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store, mutably: for fuel, deadlines, stack and memory limits,
    /// host data and array/string handles.
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// Copies host functions registered with the engine (or replaced)
    /// since the last copy into the store's table. A function keeps its
    /// id, so code compiled earlier calls a replaced body.
    fn sync_host_fns(&mut self) {
        let current = self.engine.host_fns();
        for (i, f) in current.iter().enumerate() {
            let seen = self.synced_host_fns.get(i);
            if !seen.is_some_and(|g| std::sync::Arc::ptr_eq(f, g)) {
                self.store.runtime.hostfns.register_shared(f.clone());
            }
        }
        self.synced_host_fns = current;
    }

    /// The tier for code compiled from now on.
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// Switches the tier for code run from now on.
    pub fn set_tier(&mut self, tier: Tier) -> Result<(), Error> {
        check_tier(tier)?;
        self.tier = tier;
        self.opt.vsdg = tier == Tier::Full;
        Ok(())
    }

    /// Remaining fuel (`None`: unlimited).
    pub fn fuel(&self) -> Option<u64> {
        self.store.fuel()
    }

    /// Sets the remaining fuel (`None`: unlimited); code compiled while a
    /// budget is set counts it even when the engine is not
    /// [`crate::Config::interruptible`].
    pub fn set_fuel(&mut self, fuel: Option<u64>) {
        self.store.runtime.set_fuel(fuel);
    }

    /// Heap counters.
    pub fn heap_stats(&self) -> HeapStats {
        self.store.runtime.heap().stats()
    }

    /// A handle that stops the running entry or call (or the next one)
    /// with `interrupted`, from any thread or a signal handler (it only
    /// stores to an atomic). Compiled code notices it only when built with
    /// [`crate::Config::interruptible`] or a fuel budget; the interpreter
    /// always does.
    pub fn interrupt_handle(&self) -> crate::InterruptHandle {
        self.store.runtime.interrupts().handle()
    }

    /// Runs a full garbage collection now.
    pub fn collect_garbage(&mut self) {
        self.store.runtime.collect(&[]);
    }

    /// Takes what was printed so far (with [`OutputSink::Capture`]).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.store.runtime.output().take()
    }

    /// Takes what the optimizer reported since the last call (pass times
    /// and printed functions, as [`crate::Config::trace`] asked).
    pub fn take_pass_log(&mut self) -> PassLog {
        std::mem::take(&mut self.pass_log)
    }

    /// Writes buffered output to the sink.
    pub fn flush_output(&mut self) {
        self.store.runtime.output().flush();
    }

    /// Compiles and runs a whole program named `name` (as shown in error
    /// locations), replacing the program the session held before (the
    /// heap and host data stay). Its
    /// functions stay callable afterwards.
    pub fn run(&mut self, name: &str, source: &str) -> Result<(), Error> {
        self.program = Program::default();
        self.source_ir = Program::default();
        self.global_mutable.clear();
        self.store.runtime.clear_globals();
        self.exec = None;
        let result = self.entry(name, source, false);
        self.flush_output();
        result
    }

    /// Adds a REPL-style entry: declarations persist, a final expression
    /// without `;` prints its value. Named `<entry N>` in messages.
    pub fn eval(&mut self, source: &str) -> Result<(), Error> {
        let name = format!("<entry {}>", self.entries + 1);
        self.eval_named(&name, source)
    }

    /// [`Session::eval`] with an explicit name for error locations.
    pub fn eval_named(&mut self, name: &str, source: &str) -> Result<(), Error> {
        self.entries += 1;
        let result = self.entry(name, source, true);
        self.flush_output();
        result
    }

    /// Evaluates one expression (seeing the engine's functions and
    /// globals) and returns its value.
    pub fn eval_expr(&mut self, expr: &str) -> Result<Val, Error> {
        let n_globals = self.program.globals.len();
        let source = format!("let {EVAL_GLOBAL} = ({expr}\n);");
        self.entries += 1;
        let name = format!("<expr {}>", self.entries);
        let result = self.entry(&name, &source, true);
        self.flush_output();
        result?;
        let id = self
            .program
            .global_by_name(EVAL_GLOBAL)
            .ok_or_else(|| Error::Internal("eval result global missing".to_string()))?;
        let ty = self.program.globals[id].ty;
        let w = self.store.runtime.global_words()[id.index()];
        // SAFETY: the global holds a live value of its type.
        let v = unsafe { val::from_word(ty, w) };
        if self.program.globals.len() == n_globals + 1 && id.index() == n_globals {
            truncate_globals(&mut self.program, n_globals);
            truncate_globals(&mut self.source_ir, n_globals);
            self.global_mutable.truncate(n_globals);
            self.store.runtime.truncate_globals(n_globals);
        }
        Ok(v)
    }

    /// [`Session::eval_expr`] converted to a Rust type.
    pub fn eval_as<T: FromVal>(&mut self, expr: &str) -> Result<T, Error> {
        let v = self.eval_expr(expr)?;
        let kind = v.kind();
        T::from_val(v).ok_or_else(|| {
            Error::Signature(format!(
                "expression has type {kind}, not the requested `{}`",
                std::any::type_name::<T>()
            ))
        })
    }

    /// Calls the function `name` with `args`; the result is [`Val::Unit`]
    /// for `void` functions.
    pub fn call(&mut self, name: &str, args: &[Val]) -> Result<Val, Error> {
        let id = self.func_id(name)?;
        let sig = self.program.funcs[id].sig().clone();
        if sig.params.len() != args.len() {
            return Err(Error::Signature(format!(
                "`{name}` takes {} argument(s), {} given",
                sig.params.len(),
                args.len()
            )));
        }
        for (i, (a, &t)) in args.iter().zip(&sig.params).enumerate() {
            if !a.fits(t) {
                return Err(Error::Signature(format!(
                    "argument {} of `{name}` must have type `{t}`, found {}",
                    i + 1,
                    a.kind()
                )));
            }
        }
        let mut roots = Vec::new();
        let mut words = Vec::with_capacity(args.len());
        for (a, &t) in args.iter().zip(&sig.params) {
            words.push(val::to_word(&mut self.store.runtime, t, a, &mut roots)?);
        }
        self.ensure_executor();
        let result = self.prepare(None).and_then(|()| self.execute(id, &words));
        self.flush_output();
        let w = result?;
        // SAFETY: the result is a live value of the return type (no
        // allocation has happened since the call returned).
        Ok(unsafe { val::from_word(sig.ret, w) })
    }

    /// Typed call: `engine.call_typed::<(i64, i64), i64>("add", (1, 2))`.
    pub fn call_typed<A: Args, R: FromVal>(&mut self, name: &str, args: A) -> Result<R, Error> {
        let v = self.call(name, &args.into_vals())?;
        let kind = v.kind();
        R::from_val(v).ok_or_else(|| {
            Error::Signature(format!(
                "`{name}` returns {kind}, not the requested `{}`",
                std::any::type_name::<R>()
            ))
        })
    }

    /// The functions of the program, in id order.
    pub fn functions(&self) -> Vec<FunctionInfo> {
        self.program
            .funcs
            .values()
            .map(|f| FunctionInfo {
                name: f.name().to_string(),
                sig: FuncType::of(f.sig()),
                tier: self.running_tier(f.name()),
            })
            .collect()
    }

    /// The globals of the program, in id order (a shadowed global appears
    /// once per declaration).
    pub fn globals(&self) -> Vec<GlobalInfo> {
        self.program
            .globals
            .values()
            .map(|g| GlobalInfo {
                name: g.name.clone(),
                ty: ValType(g.ty),
            })
            .collect()
    }

    /// The current value of the global `name` (the latest declaration).
    pub fn global(&self, name: &str) -> Option<Val> {
        let id = self.program.global_by_name(name)?;
        let w = *self.store.runtime.global_words().get(id.index())?;
        // SAFETY: globals hold live values of their types.
        Some(unsafe { val::from_word(self.program.globals[id].ty, w) })
    }

    /// The Waddle IR of function `name` as compiled, before optimization.
    pub fn function_ir(&self, name: &str) -> Result<String, Error> {
        let id = self.func_id(name)?;
        Ok(backend::print_function(&self.source_ir, id))
    }

    /// The Waddle IR of function `name` after optimization.
    pub fn function_opt_ir(&self, name: &str) -> Result<String, Error> {
        let id = self.func_id(name)?;
        Ok(backend::print_function(&self.program, id))
    }

    /// The VSDG of function `name` (its optimized IR lifted, as tier T3
    /// sees it) in Graphviz DOT, or a comment saying why it has none
    /// (REPL `:vsdg`).
    pub fn function_vsdg(&self, name: &str) -> Result<String, Error> {
        let id = self.func_id(name)?;
        Ok(function_vsdg_dot(&self.program.funcs[id]))
    }

    /// The tier that runs function `name` now.
    pub fn function_tier(&self, name: &str) -> Result<Tier, Error> {
        self.func_id(name)?;
        Ok(self.running_tier(name))
    }

    /// Pins function `name` to `tier` (`Some(Tier::Interp)` included), or
    /// hands it back to the engine's policy (`None`), from the next call
    /// or entry on. Pinning places functions on chosen tiers, so code on
    /// different tiers calls each other (what `auto` does by counters).
    pub fn set_function_tier(&mut self, name: &str, tier: Option<Tier>) -> Result<(), Error> {
        let id = self.func_id(name)?;
        if let Some(t) = tier {
            check_tier(t)?;
            if t == Tier::Auto {
                return Err(Error::UnsupportedTier(t));
            }
        }
        self.ensure_executor();
        if let Some(exec) = self.exec.as_mut() {
            exec.pin(id, tier);
        }
        Ok(())
    }

    /// Function `name`'s interpreter counters: calls and loop back edges
    /// left before `auto` promotes it (`i32::MAX`: not counting).
    pub fn function_counters(&self, name: &str) -> Result<(i32, i32), Error> {
        let id = self.func_id(name)?;
        Ok((self.exec.as_ref())
            .and_then(|e| e.counters(id))
            .unwrap_or((i32::MAX, i32::MAX)))
    }

    /// Waits for the background compiler and installs what it finished
    /// (otherwise installed at the next safe point while code runs).
    pub fn finish_compiles(&mut self) {
        if let Some(exec) = &self.exec {
            exec.finish_compiles(&self.program, &mut self.store.runtime);
        }
    }

    /// Whether background compiles are queued or running.
    pub fn compiling(&self) -> bool {
        self.exec.as_ref().is_some_and(|e| e.compiling())
    }

    /// How many functions `auto` has promoted by counters so far.
    pub fn promotions(&self) -> u64 {
        self.exec.as_ref().map_or(0, |e| e.promotions())
    }

    /// Of [`Self::promotions`], how many moved a function from T2 to T3.
    pub fn full_promotions(&self) -> u64 {
        self.exec.as_ref().map_or(0, |e| e.full_promotions())
    }

    /// How many running activations `auto` has moved from the interpreter
    /// into compiled code at a loop header (on-stack replacement) so far.
    pub fn osr_entries(&self) -> u64 {
        self.exec.as_ref().map_or(0, |e| e.osr_entries())
    }

    /// The machine code of function `name`, disassembled (REPL `:asm`);
    /// a note naming the tier when it has no native code.
    ///
    /// Needs the crate's `disasm` feature: without it this is
    /// [`Error::MissingFeature`] (after checking that `name` exists).
    pub fn function_asm(&self, name: &str) -> Result<String, Error> {
        let id = self.func_id(name)?;
        let code = self.exec.as_ref().and_then(|e| e.code(id));
        let (Some(code), Some(arch)) = (code.as_deref(), waddle_jit::disasm::Arch::host()) else {
            let tier = self.running_tier(name);
            return Ok(format!(
                "no native code: {name} runs on the interpreter (tier {tier})\n"
            ));
        };
        let text = disassemble(code, arch)?;
        Ok(format!(
            "{name}: {} bytes of machine code ({} tier)\n{text}",
            code.len(),
            self.running_tier(name)
        ))
    }

    /// The native code this engine holds now.
    pub fn native_code(&self) -> NativeCodeStats {
        let (units, bytes) = self.exec.as_ref().map_or((0, 0), |e| e.native_memory());
        NativeCodeStats { units, bytes }
    }

    fn running_tier(&self, name: &str) -> Tier {
        match (&self.exec, self.program.func_by_name(name)) {
            (Some(exec), Some(id)) => exec.tier_of(id),
            _ => Tier::Interp,
        }
    }

    fn func_id(&self, name: &str) -> Result<FuncId, Error> {
        self.program
            .func_by_name(name)
            .ok_or_else(|| Error::UnknownFunction(name.to_string()))
    }

    fn prelude(&self) -> Prelude {
        Prelude {
            functions: self
                .program
                .funcs
                .values()
                .map(|f| (f.name().to_string(), f.sig().clone()))
                .collect(),
            globals: self
                .program
                .globals
                .values()
                .zip(&self.global_mutable)
                .map(|(g, &mutable)| PreludeGlobal {
                    name: g.name.clone(),
                    ty: g.ty,
                    mutable,
                })
                .collect(),
            host_functions: self.store.runtime.hostfns.signatures(),
        }
    }

    fn ensure_executor(&mut self) {
        if self.exec.is_none() {
            self.exec = Some(Executor::new(
                &self.program,
                &mut self.store.runtime,
                self.store.stack_limit,
                self.engine.config().tiering.clone(),
            ));
        }
    }

    /// Compiles, links and runs one entry.
    fn entry(&mut self, name: &str, source: &str, repl: bool) -> Result<(), Error> {
        check_tier(self.tier)?;
        let compiled = self.compile_entry(name, source, repl)?;
        self.pass_log.merge(compiled.log);
        let mutable: Vec<bool> = (compiled.frontend.typed.globals.iter())
            .map(|g| g.mutable)
            .collect();
        let n_before = self.program.funcs.len();
        let link_error = |e: link::LinkError| Error::Internal(format!("linking: {e}"));
        let mut linked = link::link(&mut self.program, compiled.optimized).map_err(link_error)?;
        self.global_mutable = mutable;
        // The unoptimized mirror links the same way (same ids by construction).
        link::link(&mut self.source_ir, compiled.frontend.program).map_err(link_error)?;
        self.reoptimize_inliners(n_before, &mut linked)?;
        for &f in &linked.changed {
            if self.vsdg_done.len() <= f.index() {
                self.vsdg_done.resize(f.index() + 1, false);
            }
            self.vsdg_done[f.index()] = self.opt.vsdg;
        }
        let globals = self.store.runtime.add_globals(&linked.new_globals);
        let mut result = globals.map_err(|code| Error::Runtime(RuntimeError::new(code, None)));
        match &mut self.exec {
            None => {
                self.exec = Some(Executor::new(
                    &self.program,
                    &mut self.store.runtime,
                    self.store.stack_limit,
                    self.engine.config().tiering.clone(),
                ))
            }
            Some(exec) => exec.update(&self.program, &linked.changed, &mut self.store.runtime),
        }
        if result.is_ok() {
            result = self.prepare(linked.main);
        }
        if let Some(main) = linked.main {
            if result.is_ok() {
                result = self.execute(main, &[]).map(|_| ());
            }
            if let Some(exec) = &mut self.exec {
                exec.forget(main);
            }
            link::drop_last_function(&mut self.program, main);
            link::drop_last_function(&mut self.source_ir, main);
        }
        result
    }

    /// Keeps "a redefinition replaces the function for all later calls"
    /// true under inlining: every older function whose source calls a
    /// redefined one (directly or through other callers) may carry its old
    /// body inlined, so it is optimized again from its source IR and
    /// counted as changed.
    fn reoptimize_inliners(
        &mut self,
        n_before: usize,
        linked: &mut link::Linked,
    ) -> Result<(), Error> {
        let redefined: Vec<FuncId> = (linked.changed.iter())
            .copied()
            .filter(|f| f.index() < n_before)
            .collect();
        if redefined.is_empty() || !self.opt.may_inline() {
            return Ok(());
        }
        let stale = link::callers_of(&self.source_ir, &redefined, &linked.changed);
        if stale.is_empty() {
            return Ok(());
        }
        let mut fresh = self.source_ir.clone();
        let log = compile::optimize(&mut fresh, &self.opt)?;
        self.pass_log.merge(log);
        for &f in &stale {
            self.program.funcs[f] = fresh.funcs[f].clone();
        }
        linked.changed.extend(stale);
        Ok(())
    }

    /// Compiles what the tier wants native before `run` (or a call from
    /// Rust) executes; a panic in a code generator becomes an internal error.
    fn prepare(&mut self, run: Option<FuncId>) -> Result<(), Error> {
        let Some(exec) = self.exec.as_mut() else {
            return Err(Error::Internal("no executor".to_string()));
        };
        // The store's stack limit may have changed since the last entry.
        exec.set_stack_budget(self.store.stack_limit);
        let fuel = self.store.runtime.fuel().is_some() || self.engine.config().interruptible;
        let (program, runtime, tier) = (&self.program, &mut self.store.runtime, self.tier);
        let _ = run;
        let vsdg_done = &self.vsdg_done;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            exec.prepare(program, runtime, tier, fuel, vsdg_done)
        }));
        match outcome {
            Ok(r) => r.map_err(|e| Error::Internal(format!("native code generation failed: {e}"))),
            Err(p) => {
                self.exec = None;
                Err(compile::panic_error("the code generator", p))
            }
        }
    }

    /// Runs `func` on the executor, turning traps into runtime errors and
    /// panics into internal errors.
    fn execute(&mut self, func: FuncId, args: &[Word]) -> Result<Word, Error> {
        let Some(exec) = self.exec.as_mut() else {
            return Err(Error::Internal("no executor".to_string()));
        };
        let runtime = &mut self.store.runtime;
        let program = &self.program;
        let mark = runtime.trace_mark();
        let outcome = catch_unwind(AssertUnwindSafe(|| exec.call(runtime, program, func, args)));
        let frames = self.store.runtime.take_trace(mark);
        match outcome {
            Err(p) => {
                // The executor's state is unknown after a panic: rebuild it.
                self.exec = None;
                Err(compile::panic_error("execution", p))
            }
            Ok(Err(trap)) => {
                let e = self.trap_error(trap).with_trace(&frames, &self.program);
                Err(Error::Runtime(e))
            }
            Ok(Ok(w)) => Ok(w),
        }
    }
}

/// `Ok` for tiers this build can run, else [`Error::UnsupportedTier`].
pub fn check_tier(tier: Tier) -> Result<(), Error> {
    if tier.is_available() {
        Ok(())
    } else {
        Err(Error::UnsupportedTier(tier))
    }
}

/// The text form of a whole IR program (as `--emit ir` prints it).
#[cfg(feature = "tooling")]
pub fn print_program(program: &Program) -> String {
    backend::print_program(program)
}

/// The VSDG of every function of an optimized (canonical) `program` in
/// Graphviz DOT, one `digraph` per function (for `--emit vsdg`).
#[cfg(feature = "tooling")]
pub fn print_vsdg(program: &Program) -> String {
    program
        .funcs
        .values()
        .filter(|f| !f.is_declaration())
        .map(function_vsdg_dot)
        .collect()
}

/// One function's VSDG in DOT, or a DOT comment with the reason it has none.
fn function_vsdg_dot(f: &waddle_opt::ir::Function) -> String {
    let lifted = std::panic::catch_unwind(|| waddle_opt::vsdg::lift(f));
    match lifted {
        Ok(Ok(g)) => waddle_opt::vsdg::dot::to_dot(&g, f.name()),
        Ok(Err(e)) => format!("// {}: {e}\n", f.name()),
        Err(_) => format!(
            "// {}: internal error while lifting to the VSDG\n",
            f.name()
        ),
    }
}

/// The parsed syntax tree of `source`, as text (for `--emit ast`).
#[cfg(feature = "tooling")]
pub fn emit_ast(name: &str, source: &str) -> Result<String, Error> {
    let mut sources = waddle_frontend::SourceMap::default();
    sources.add(waddle_frontend::SourceFile::new(name, source));
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        waddle_frontend::parse_only(&sources, false)
    }))
    .map_err(|p| compile::panic_error("the parser", p))?;
    match parsed {
        Ok(module) => Ok(format!("{module:#?}\n")),
        Err(diags) => Err(Error::Compile {
            rendered: waddle_frontend::diag::render(&diags, &sources),
            diagnostics: crate::error::diagnostics(&diags, &sources),
        }),
    }
}

fn truncate_globals(p: &mut Program, n: usize) {
    if p.globals.len() > n {
        let globals = std::mem::take(&mut p.globals);
        p.globals = globals.into_iter().take(n).map(|(_, g)| g).collect();
    }
}

#[cfg(test)]
mod tests;

/// `code` as text, addresses where it lies in memory.
#[cfg(feature = "disasm")]
pub(crate) fn disassemble(code: &[u8], arch: waddle_jit::disasm::Arch) -> Result<String, Error> {
    Ok(waddle_jit::disasm::disassemble(
        code,
        code.as_ptr() as u64,
        arch,
    ))
}

/// Without the `disasm` feature there is no disassembler.
#[cfg(not(feature = "disasm"))]
pub(crate) fn disassemble(_code: &[u8], _arch: waddle_jit::disasm::Arch) -> Result<String, Error> {
    Err(Error::MissingFeature {
        feature: "disasm",
        what: "disassembling machine code",
    })
}
