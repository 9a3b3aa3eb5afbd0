//! [`Store`]: the state one user of a module runs in (heap, globals,
//! output, limits), and [`Instance`]: a module instantiated in a store.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cranelift_entity::EntityRef;
use waddle_jit::{EntryLoc, HostEnv};
use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, SrcLoc, Type};

use super::engine::Engine;
use super::func::{TypedFunc, TypedParams, TypedResult, MAX_TYPED_PARAMS};
use super::interrupt::InterruptHandle;
use super::module::Module;
use crate::engine::exec::Executor;
use crate::engine::val::{from_word, to_word};
use crate::engine::{panic_error, FromVal, IntoVal, Val};
use crate::error::{Error, RuntimeError};
use crate::heap::{HeapConfig, HeapStats};
use crate::host::Runtime;
use crate::output::OutputSink;
use crate::Tier;

/// Source of unique store identities (checked by typed functions).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A new store identity (also given to a `Session`'s runtime, so host
/// functions can take [`crate::ArrayRef`] parameters there too).
pub(crate) fn next_store_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// One heap, one set of globals, one output sink, one fuel budget and one
/// interrupt state: what a module runs in.
///
/// `Send` (move it to another thread between calls), not `Sync`: one
/// thread uses a store at a time. A store holds at most one
/// [`Instance`]; use one store per instance (stores are cheap: the
/// module's compiled code is shared).
///
/// ```
/// use waddle::{Engine, Module, OutputSink, Store};
/// let engine = Engine::default();
/// let module = Module::new(&engine, "hi.wdl", "var n = 0; fn bump() -> int { n += 1; return n; } print(\"ready\");")?;
/// let mut store = Store::with_output(&engine, OutputSink::Capture);
/// let instance = store.instantiate(&module)?;     // runs the top-level code
/// assert_eq!(store.take_output(), b"ready\n");
/// let bump = instance.typed_func::<(), i64>(&store, "bump")?;
/// bump.call(&mut store, ())?;
/// assert_eq!(bump.call(&mut store, ())?, 2);
/// assert_eq!(instance.global(&store, "n"), Some(waddle::Val::Int(2)));
/// # Ok::<(), waddle::Error>(())
/// ```
pub struct Store {
    id: u64,
    engine: Engine,
    /// Heap, globals, output, fuel, interrupts and host state (a
    /// [`crate::Session`] runs its entries in it too).
    pub(crate) runtime: Runtime,
    instance: Option<InstanceState>,
    /// Stack bytes a call may use (see [`Store::set_stack_limit`]).
    pub(crate) stack_limit: usize,
}

/// What a store keeps of its instance.
struct InstanceState {
    module: Module,
    /// The store's interned copies of the native unit's string constants.
    strings: Box<[Word]>,
    /// The interpreter (prepared for this store's heap) and, on `auto`, the
    /// code promoted by counters: built lazily by the first call that does
    /// not run in the module's shared unit.
    exec: Option<Executor>,
}

/// A module instantiated in a [`Store`]: the handle to get its functions
/// and globals. Cheap to clone; only usable with its store.
#[derive(Clone, Debug)]
pub struct Instance {
    store_id: u64,
    module: Module,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("id", &self.id)
            .field("instance", &self.instance.as_ref().map(|i| i.module.name()))
            .finish()
    }
}

impl Store {
    /// An empty store printing to standard output, with the engine's
    /// default memory limit and no fuel limit.
    pub fn new(engine: &Engine) -> Store {
        Store::with_output(engine, OutputSink::Stdout)
    }

    /// An empty store whose `print` output goes to `sink`.
    pub fn with_output(engine: &Engine, sink: OutputSink) -> Store {
        let config = engine.config();
        let heap = HeapConfig {
            memory_limit: config.memory_limit,
            stress: config.gc_stress,
            ..HeapConfig::default()
        };
        let id = next_store_id();
        let mut runtime = Runtime::new(heap, sink, None);
        runtime.handles.store_id = id;
        Store {
            id,
            engine: engine.clone(),
            runtime,
            instance: None,
            stack_limit: config.stack_budget,
        }
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    pub(crate) fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    pub(crate) fn runtime_mut(&mut self) -> &mut Runtime {
        &mut self.runtime
    }

    /// The engine the store belongs to.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Instantiates `module` in this store: creates its globals and runs
    /// its top-level code. A store holds one instance; a second
    /// `instantiate`, or a module of another engine, is
    /// [`Error::Instance`]. If the top-level code fails, the store stays
    /// empty (and can instantiate again).
    pub fn instantiate(&mut self, module: &Module) -> Result<Instance, Error> {
        if let Some(i) = &self.instance {
            return Err(Error::Instance(format!(
                "this store already holds an instance of `{}` (use one store per instance)",
                i.module.name()
            )));
        }
        if !module.engine().same(&self.engine) {
            return Err(Error::Instance(
                "the module was compiled by another engine".to_string(),
            ));
        }
        let m = module.inner();
        let types: Vec<Type> = m.program.globals.values().map(|g| g.ty).collect();
        self.runtime.clear_globals();
        if let Err(code) = self.runtime.add_globals(&types) {
            self.runtime.clear_globals();
            return Err(Error::Runtime(RuntimeError::from_trap(
                Trap {
                    code,
                    loc: SrcLoc::NONE,
                },
                &m.program,
            )));
        }
        let strings = match &m.native {
            Some(unit) => unit
                .string_texts()
                .iter()
                .map(|t| self.runtime.intern_str(t))
                .collect(),
            None => Box::default(),
        };
        self.runtime.hostfns.table = m.host_fns.clone();
        self.runtime.hostfns.error = None;
        self.instance = Some(InstanceState {
            module: module.clone(),
            strings,
            exec: None,
        });
        if let Some(main) = m.program.main {
            if let Err(e) = self.invoke(main, &[]) {
                self.instance = None;
                self.runtime.clear_globals();
                return Err(e);
            }
        }
        Ok(Instance {
            store_id: self.id,
            module: module.clone(),
        })
    }

    /// Runs `func` of the instance with argument words `args` on the tier
    /// that has code for it: the one path every call from Rust takes.
    #[inline]
    pub(crate) fn invoke(&mut self, func: FuncId, args: &[Word]) -> Result<Word, Error> {
        let Some(inst) = self.instance.as_mut() else {
            return Err(Error::Instance("the store holds no instance".to_string()));
        };
        let m = inst.module.inner();
        if let Err(code) = self.runtime.interrupts().check() {
            return self.interrupted(func, code);
        }
        let runtime = &mut self.runtime;
        let stack_limit = self.stack_limit;
        let mark = runtime.trace_mark();
        let outcome = match (&m.native, m.is_native.get(func.index())) {
            (Some(unit), Some(true)) => catch_unwind(AssertUnwindSafe(|| {
                unit.call_shared(
                    runtime,
                    func,
                    args,
                    &inst.strings,
                    Some(stack_limit),
                    EntryLoc::Callee,
                )
            })),
            _ => {
                let program = &m.program;
                let exec = match &mut inst.exec {
                    Some(e) => e,
                    None => {
                        let config = m.engine.config();
                        let prepared = catch_unwind(AssertUnwindSafe(|| {
                            let mut e = Executor::new(
                                program,
                                runtime,
                                stack_limit,
                                config.tiering.clone(),
                            );
                            let tier = match config.tier {
                                Tier::Auto => Tier::Auto,
                                _ => Tier::Interp,
                            };
                            // Under `auto` the module's pipeline had no VSDG round
                            // trip: T3 promotions run it.
                            e.prepare(program, runtime, tier, config.interruptible, &[])
                                .map(|()| e)
                        }))
                        .map_err(|p| panic_error("the interpreter", p))?
                        .map_err(|e| {
                            Error::Internal(format!("native code generation failed: {e}"))
                        })?;
                        inst.exec.insert(prepared)
                    }
                };
                let outcome =
                    catch_unwind(AssertUnwindSafe(|| exec.call(runtime, program, func, args)));
                if outcome.is_err() {
                    // Its state is unknown after a panic: prepare afresh.
                    inst.exec = None;
                }
                outcome
            }
        };
        self.settle(outcome, mark)
    }

    /// [`Store::invoke`] for a function of the instance's shared native
    /// unit, through its [`NativeEntry`] (from
    /// [`waddle_jit::NativeProgram::entry`], read into the module's call
    /// plans when it was compiled):
    /// no lookup, no dynamic call into the unit, the host's tables read
    /// directly. `call` makes the call ([`waddle_jit::call_entry`] or
    /// [`waddle_jit::call_entry_direct`]) with the runtime and its tables.
    ///
    /// # Safety
    /// `entry` must be `func`'s entry in the native unit of this store's
    /// instance (the caller checked the store's identity; a store's
    /// instance never changes once it is set), and `call` must call it
    /// with the arguments of `func`'s signature.
    #[inline]
    pub(crate) unsafe fn invoke_native(
        &mut self,
        func: FuncId,
        call: impl FnOnce(&mut Runtime, &HostEnv) -> Result<Word, Trap>,
    ) -> Result<Word, Error> {
        let Some(inst) = self.instance.as_ref() else {
            return Err(Error::Instance("the store holds no instance".to_string()));
        };
        if let Err(code) = self.runtime.interrupts().check() {
            return self.interrupted(func, code);
        }
        let mark = self.runtime.trace_mark();
        let env = self.runtime.host_env(&inst.strings, self.stack_limit);
        let runtime = &mut self.runtime;
        // The instance's module keeps the unit alive for the call; `env`
        // is this runtime's globals area and the instance's interned
        // string table, neither of which changes during the call.
        let outcome = catch_unwind(AssertUnwindSafe(|| call(runtime, &env)));
        self.settle(outcome, mark)
    }

    /// Ends a call of [`Store::invoke`] or [`Store::invoke_native`]: flushes
    /// the output and turns `outcome` into the call's result, dropping the
    /// frames a host function's swallowed nested failure left after `mark`.
    #[inline]
    fn settle(
        &mut self,
        outcome: std::thread::Result<Result<Word, Trap>>,
        mark: usize,
    ) -> Result<Word, Error> {
        self.runtime.output().flush();
        match outcome {
            Ok(Ok(w)) => {
                self.runtime.truncate_trace(mark);
                Ok(w)
            }
            _ => self.failed(outcome, mark),
        }
    }

    /// The error of a call stopped by an interrupt or deadline before it
    /// started.
    #[cold]
    #[inline(never)]
    fn interrupted(&self, func: FuncId, code: TrapCode) -> Result<Word, Error> {
        let Some(inst) = self.instance.as_ref() else {
            return Err(Error::Instance("the store holds no instance".to_string()));
        };
        let m = inst.module.inner();
        let loc = m.program.funcs.get(func).map_or(SrcLoc::NONE, |f| f.loc());
        Err(Error::Runtime(RuntimeError::from_trap(
            Trap { code, loc },
            &m.program,
        )))
    }

    /// The error of a call that trapped or panicked: the runtime error with
    /// the frames reported since `mark` and the host function's message.
    #[cold]
    #[inline(never)]
    fn failed(
        &mut self,
        outcome: std::thread::Result<Result<Word, Trap>>,
        mark: usize,
    ) -> Result<Word, Error> {
        let Some(inst) = self.instance.as_ref() else {
            return Err(Error::Instance("the store holds no instance".to_string()));
        };
        let m = inst.module.inner();
        match outcome {
            Ok(Ok(w)) => {
                self.runtime.truncate_trace(mark);
                Ok(w)
            }
            Ok(Err(trap)) => {
                let frames = self.runtime.take_trace(mark);
                let mut e =
                    RuntimeError::from_trap(trap, &m.program).with_trace(&frames, &m.program);
                if trap.code == TrapCode::HostError {
                    if let Some(msg) = self.runtime.hostfns.error.take() {
                        e.message = msg;
                    }
                }
                Err(Error::Runtime(e))
            }
            Err(p) => {
                self.runtime.truncate_trace(mark);
                Err(panic_error("execution", p))
            }
        }
    }

    /// Records the stack limit; the prepared interpreter takes it now,
    /// native code at each call.
    pub(crate) fn set_stack_limit_inner(&mut self, bytes: usize) {
        self.stack_limit = bytes;
        if let Some(exec) = self.instance.as_mut().and_then(|i| i.exec.as_mut()) {
            exec.set_stack_budget(bytes);
        }
    }

    /// The stack limit in bytes ([`Store::set_stack_limit`]).
    pub fn stack_limit(&self) -> usize {
        self.stack_limit
    }

    /// Sets the data host functions reach with [`crate::Caller::data`]
    /// (replacing earlier data of any type).
    pub fn set_data<T: std::any::Any + Send>(&mut self, data: T) {
        self.runtime.hostfns.data = Some(Box::new(data));
    }

    /// The data set with [`Store::set_data`], if it has type `T`.
    pub fn data<T: std::any::Any>(&self) -> Option<&T> {
        self.runtime.hostfns.data.as_ref()?.downcast_ref()
    }

    /// The data set with [`Store::set_data`], mutably.
    pub fn data_mut<T: std::any::Any>(&mut self) -> Option<&mut T> {
        self.runtime.hostfns.data.as_mut()?.downcast_mut()
    }

    /// How many functions `auto` has promoted by counters in this store
    /// so far, and how many running activations it moved into compiled
    /// code at a loop header (on-stack replacement): `(promotions,
    /// osr_entries)`. Both 0 on the eager tiers.
    pub fn tier_ups(&self) -> (u64, u64) {
        let exec = self.instance.as_ref().and_then(|i| i.exec.as_ref());
        exec.map_or((0, 0), |e| (e.promotions(), e.osr_entries()))
    }

    /// Of the promotions [`Store::tier_ups`] counts, how many moved a
    /// function from T2 to T3 (`full`).
    pub fn full_promotions(&self) -> u64 {
        let exec = self.instance.as_ref().and_then(|i| i.exec.as_ref());
        exec.map_or(0, |e| e.full_promotions())
    }

    /// Remaining fuel (`None`: unlimited).
    pub fn fuel(&self) -> Option<u64> {
        self.runtime.fuel()
    }

    /// Sets the remaining fuel (`None`: unlimited). Fuel is charged one
    /// unit per function entry and loop back edge of the code as
    /// optimized: for one [`crate::Config::opt_level`] every tier charges
    /// the same, while optimizations that remove entries or back edges
    /// (inlining, unrolling) make `-O2` code use fewer units than `-O0`.
    /// [`Tier::Full`](crate::Tier::Full) optimizes the module further (the
    /// VSDG round trip) and counts that code on every tier; under
    /// [`Tier::Auto`](crate::Tier::Auto), while a budget is set, promotions
    /// to T3 skip the round trip, so `auto` charges exactly what the
    /// interpreter does at the same level. Units are paid in batches of [`crate::FUEL_BATCH`], so a call
    /// stops (or, with [`crate::TypedFunc::call_resumable`], pauses) when
    /// the fuel left cannot pay the next batch. Running out is
    /// [`crate::TrapCode::OutOfFuel`], after which the store can be
    /// refueled and used again. Refused when the engine's native code does
    /// not count fuel ([`crate::Config::interruptible`] off).
    /// ```
    /// use waddle::{Config, Engine, Module, Store, Tier, TrapCode};
    /// let engine = Engine::new(&Config::new().tier(Tier::Opt).interruptible(true))?;
    /// let module = Module::new(&engine, "spin.wdl", "fn spin() { while true {} }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let spin = instance.typed_func::<(), ()>(&store, "spin")?;
    /// store.set_fuel(Some(100_000))?;
    /// let e = spin.call(&mut store, ()).unwrap_err();
    /// assert_eq!(e.trap_code(), Some(TrapCode::OutOfFuel));
    /// assert!(store.fuel().unwrap() < waddle::FUEL_BATCH);
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn set_fuel(&mut self, fuel: Option<u64>) -> Result<(), Error> {
        let config = self.engine.config();
        if fuel.is_some()
            && !config.interruptible
            && crate::engine::tiering::native_tier(config.tier).is_some()
        {
            return Err(Error::Instance(
                "fuel needs an engine whose native code counts it (Config::interruptible(true))"
                    .to_string(),
            ));
        }
        self.runtime.set_fuel(fuel);
        Ok(())
    }

    /// A handle that interrupts code running in this store, from any thread.
    ///
    /// An interrupt requested while nothing runs stops the next call
    /// before it starts; from another thread it stops a running loop.
    /// ```
    /// use waddle::{Config, Engine, Module, Store, TrapCode};
    /// let engine = Engine::new(&Config::new().interruptible(true))?;
    /// let module = Module::new(&engine, "spin.wdl", "fn spin() { while true {} }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let spin = instance.typed_func::<(), ()>(&store, "spin")?;
    /// let handle = store.interrupt_handle();             // Send + Sync + Clone
    /// let stopper = std::thread::spawn(move || handle.interrupt());
    /// let e = spin.call(&mut store, ()).unwrap_err();
    /// stopper.join().unwrap();
    /// assert_eq!(e.trap_code(), Some(TrapCode::Interrupted));
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn interrupt_handle(&self) -> InterruptHandle {
        self.runtime.interrupts().handle()
    }

    /// Stops code running in this store once `timeout` has passed from
    /// now ([`crate::TrapCode::Interrupted`]); applies to every later call until
    /// changed or cleared. Noticed where fuel is charged, like
    /// [`InterruptHandle::interrupt`].
    /// ```
    /// use std::time::Duration;
    /// use waddle::{Config, Engine, Module, Store, TrapCode};
    /// let engine = Engine::new(&Config::new().interruptible(true))?;
    /// let module = Module::new(&engine, "spin.wdl", "fn spin() { while true {} }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let spin = instance.typed_func::<(), ()>(&store, "spin")?;
    /// store.set_deadline(Duration::from_millis(20));
    /// let e = spin.call(&mut store, ()).unwrap_err();
    /// assert_eq!(e.trap_code(), Some(TrapCode::Interrupted));
    /// store.clear_deadline();
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn set_deadline(&mut self, timeout: Duration) {
        let deadline = Instant::now().checked_add(timeout);
        self.runtime.interrupts_mut().set_deadline(deadline);
    }

    /// Removes the deadline and any pending interrupt request.
    pub fn clear_deadline(&mut self) {
        let interrupts = self.runtime.interrupts_mut();
        interrupts.set_deadline(None);
        interrupts.clear();
    }

    /// Takes what was printed so far (with [`OutputSink::Capture`]).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.runtime.output().take()
    }

    /// Writes buffered output to the sink (calls into the store flush
    /// when they return; this is for output left by a failed call).
    pub fn flush_output(&mut self) {
        self.runtime.output().flush();
    }

    /// Heap counters.
    pub fn heap_stats(&self) -> HeapStats {
        self.runtime.heap().stats()
    }

    /// Runs a full garbage collection now.
    pub fn collect_garbage(&mut self) {
        self.runtime.collect(&[]);
    }
}

impl Instance {
    /// The module this is an instance of.
    pub fn module(&self) -> &Module {
        &self.module
    }

    fn check_store(&self, store: &Store) -> Result<(), Error> {
        if store.id == self.store_id && store.instance.is_some() {
            Ok(())
        } else {
            Err(Error::Instance(
                "the instance was used with a store it does not belong to".to_string(),
            ))
        }
    }

    /// The function `name` as a [`TypedFunc`] taking `P` and returning `R`;
    /// [`Error::UnknownFunction`] or [`Error::Signature`] when it does not
    /// exist or its signature does not match.
    pub fn typed_func<P: TypedParams, R: TypedResult>(
        &self,
        store: &Store,
        name: &str,
    ) -> Result<TypedFunc<P, R>, Error> {
        self.check_store(store)?;
        let m = self.module.inner();
        let id = m.func(name)?;
        let sig = m.program.funcs[id].sig();
        if !P::accepts(&sig.params) || !R::accepts(sig.ret) {
            let params: Vec<String> = sig.params.iter().map(|t| t.to_string()).collect();
            return Err(Error::Signature(format!(
                "`{name}` has type fn({}) -> {}, not fn{} -> {}",
                params.join(", "),
                sig.ret,
                std::any::type_name::<P>(),
                std::any::type_name::<R>()
            )));
        }
        Ok(TypedFunc {
            store_id: self.store_id,
            params: sig.params.clone().into_boxed_slice(),
            ret: sig.ret,
            plan: *m.plan(id).ok_or_else(no_plan)?,
            _sig: std::marker::PhantomData,
        })
    }

    /// Calls `name` with dynamically typed arguments (checked on every
    /// call); the result is [`Val::Unit`] for `void` functions.
    pub fn call(&self, store: &mut Store, name: &str, args: &[Val]) -> Result<Val, Error> {
        self.check_store(store)?;
        let m = self.module.inner();
        let id = m.func(name)?;
        let sig = m.program.funcs[id].sig();
        if sig.params.len() != args.len() {
            return Err(Error::Signature(format!(
                "`{name}` takes {} argument(s), {} given",
                sig.params.len(),
                args.len()
            )));
        }
        // Up to MAX_TYPED_PARAMS arguments on the stack; only strings and
        // arrays allocate (and need roots while later ones are made).
        let mut small = [0 as Word; MAX_TYPED_PARAMS];
        let mut large = Vec::new();
        let words = match small.get_mut(..args.len()) {
            Some(words) => words,
            None => {
                large.resize(args.len(), 0);
                &mut large[..]
            }
        };
        let mut roots = Vec::new();
        for (i, (a, &t)) in args.iter().zip(&sig.params).enumerate() {
            words[i] = match (a, t) {
                (Val::Int(v), Type::Int) => *v as Word,
                (Val::Float(v), Type::Float) => v.to_bits(),
                (Val::Bool(v), Type::Bool) => Word::from(*v),
                _ if a.fits(t) => to_word(&mut store.runtime, t, a, &mut roots)?,
                _ => {
                    return Err(Error::Signature(format!(
                        "argument {} of `{name}` must have type `{t}`, found {}",
                        i + 1,
                        a.kind()
                    )))
                }
            };
        }
        let ret = sig.ret;
        let plan = *m.plan(id).ok_or_else(no_plan)?;
        // SAFETY: the store holds this instance (checked above); the words
        // have the parameter types (checked one by one), and nothing was
        // allocated after the last of them was made.
        let w = unsafe {
            if large.is_empty() {
                plan.call(store, &small, args.len())
            } else {
                plan.call_slice(store, &large)
            }
        }?;
        // SAFETY: the result is a live value of the return type (no
        // allocation has happened since the call returned).
        Ok(unsafe { from_word(ret, w) })
    }

    /// Sets the global `name` of the instance in `store` to `value` (also
    /// `let` globals: the host may set what scripts may not); the value
    /// must have the global's type.
    ///
    /// ```
    /// use waddle::{Engine, Module, Store};
    /// let engine = Engine::default();
    /// let module = Module::new(&engine, "g.wdl", "var limit = 10; fn twice() -> int { return limit * 2; }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// instance.set_global(&mut store, "limit", 21i64)?;
    /// let twice = instance.typed_func::<(), i64>(&store, "twice")?;
    /// assert_eq!(twice.call(&mut store, ())?, 42);
    /// assert_eq!(instance.get_global::<i64>(&store, "limit")?, 21);
    /// assert!(instance.set_global(&mut store, "limit", 1.5).is_err());
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn set_global<T: IntoVal>(
        &self,
        store: &mut Store,
        name: &str,
        value: T,
    ) -> Result<(), Error> {
        self.check_store(store)?;
        let p = &self.module.inner().program;
        let id = (p.global_by_name(name))
            .ok_or_else(|| Error::Signature(format!("no global named `{name}`")))?;
        let ty = p.globals[id].ty;
        let v = value.into_val();
        if !v.fits(ty) {
            return Err(Error::Signature(format!(
                "global `{name}` has type `{ty}`, cannot assign {}",
                v.kind()
            )));
        }
        let mut roots = Vec::new();
        let w = to_word(&mut store.runtime, ty, &v, &mut roots)?;
        store.runtime.set_global_word(id.index(), w);
        Ok(())
    }

    /// The value of the global `name` of the instance in `store` as a `T`.
    pub fn get_global<T: FromVal>(&self, store: &Store, name: &str) -> Result<T, Error> {
        let v = (self.global(store, name))
            .ok_or_else(|| Error::Signature(format!("no global named `{name}`")))?;
        let kind = v.kind();
        T::from_val(v).ok_or_else(|| {
            Error::Signature(format!(
                "global `{name}` holds {kind}, not the requested `{}`",
                std::any::type_name::<T>()
            ))
        })
    }

    /// The current value of global `name` (`None` when there is none).
    pub fn global(&self, store: &Store, name: &str) -> Option<Val> {
        self.check_store(store).ok()?;
        let p = &self.module.inner().program;
        let id = p.global_by_name(name)?;
        let w = *store.runtime.global_words().get(id.index())?;
        // SAFETY: globals hold live values of their types.
        Some(unsafe { from_word(p.globals[id].ty, w) })
    }
}

/// The error for a function of a module without a call plan (none: every
/// function has one).
#[cold]
fn no_plan() -> Error {
    Error::Internal("a function of the module has no call plan".to_string())
}
