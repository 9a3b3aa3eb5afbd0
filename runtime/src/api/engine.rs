//! [`Engine`] and its [`Config`]: what every module and store of an
//! application shares.

use std::sync::{Arc, RwLock};

use waddle_opt::ir::Signature;

use waddle_opt::abi::DEFAULT_STACK_BUDGET;

use crate::engine::{check_passes, check_tier, OptOptions, PassTrace};
use crate::error::Error;
use crate::hostfn::{ErasedFn, HostFn, IntoHostFn, IntoHostFnWithCaller};
use crate::Tier;

/// How an [`Engine`] compiles and runs code (builder style:
/// `Config::new().tier(Tier::Opt).opt_level(1)`).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Execution tier (default [`Tier::Auto`]).
    pub tier: Tier,
    /// Optimization level 0–2 (default 2); ignored when `passes` is set.
    pub opt_level: u8,
    /// An explicit pass list instead of the `-O` pipeline.
    pub passes: Option<Vec<String>>,
    /// Stack bytes Waddle calls may use before `stack overflow`.
    pub stack_budget: usize,
    /// Whether native code checks for interrupts, deadlines and fuel at
    /// function entries and loop back edges (default `true`; see
    /// [`Config::interruptible`]).
    pub interruptible: bool,
    /// Default heap limit of new stores in bytes (`None`: what the system
    /// allows).
    pub memory_limit: Option<usize>,
    /// Collector stress mode (for tests): collect before every allocation.
    pub gc_stress: bool,
    /// Optimizer diagnostics each module collects ([`crate::Module::pass_log`]).
    pub trace: PassTrace,
    /// Whether scripts may declare `extern "lib" fn` (FFI; see
    /// [`crate::Session::allow_ffi`]). Off by default.
    pub allow_ffi: bool,
    /// How `auto` promotes functions from the interpreter to compiled
    /// code (see [`crate::TierOptions`]).
    pub tiering: crate::TierOptions,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            tier: Tier::Auto,
            opt_level: 2,
            passes: None,
            stack_budget: DEFAULT_STACK_BUDGET,
            interruptible: true,
            memory_limit: None,
            gc_stress: false,
            trace: PassTrace::default(),
            allow_ffi: false,
            tiering: crate::TierOptions::default(),
        }
    }
}

impl Config {
    /// The default configuration (tier `auto`, `-O2`, interruptible).
    pub fn new() -> Config {
        Config::default()
    }

    /// Sets translation validation of optimized code
    /// ([`crate::engine::Validation`]): `Guard` is the validated tier-up,
    /// where a function whose optimization does not validate keeps its
    /// unoptimized IR, and the module's pass log says why.
    pub fn validation(mut self, mode: crate::engine::Validation) -> Config {
        self.trace.validate = mode;
        self
    }

    /// Sets the execution tier.
    pub fn tier(mut self, tier: Tier) -> Config {
        self.tier = tier;
        self
    }

    /// Sets the optimization level (0, 1 or 2).
    pub fn opt_level(mut self, level: u8) -> Config {
        self.opt_level = level;
        self
    }

    /// Runs exactly these passes instead of the `-O` pipeline.
    pub fn passes(mut self, passes: Vec<String>) -> Config {
        self.passes = Some(passes);
        self
    }

    /// Sets the stack budget in bytes.
    pub fn stack_budget(mut self, bytes: usize) -> Config {
        self.stack_budget = bytes;
        self
    }

    /// Whether native code counts fuel at function entries and loop back
    /// edges, which is also where interrupts and deadlines are noticed.
    /// With `false` native loops run a little faster, but
    /// [`crate::Store::set_fuel`] is refused and interrupts reach native
    /// code only when it calls a runtime helper that checks them; the
    /// interpreter always checks.
    pub fn interruptible(mut self, yes: bool) -> Config {
        self.interruptible = yes;
        self
    }

    /// Sets how `auto` promotes functions (see [`crate::TierOptions`]).
    pub fn tiering(mut self, tiering: crate::TierOptions) -> Config {
        self.tiering = tiering;
        self
    }

    /// Collector stress mode (for tests): collect before every allocation.
    pub fn gc_stress(mut self, yes: bool) -> Config {
        self.gc_stress = yes;
        self
    }

    /// Whether scripts may declare `extern "lib" fn` (FFI).
    pub fn allow_ffi(mut self, yes: bool) -> Config {
        self.allow_ffi = yes;
        self
    }

    /// Sets the optimizer diagnostics each module (or session) collects.
    pub fn trace(mut self, trace: PassTrace) -> Config {
        self.trace = trace;
        self
    }

    /// Sets the default heap limit of new stores.
    pub fn memory_limit(mut self, bytes: Option<usize>) -> Config {
        self.memory_limit = bytes;
        self
    }
}

/// Shared configuration of an application's Waddle code: the tier policy
/// and optimizer settings every [`crate::Module`] is compiled with, and the
/// defaults of every [`crate::Store`].
///
/// `Clone + Send + Sync`; cloning is an `Arc` increment, so pass it around
/// freely.
///
/// ```
/// use waddle::{Config, Engine, Tier};
/// let engine = Engine::new(&Config::new().tier(Tier::Interp)).unwrap();
/// assert_eq!(engine.config().tier, Tier::Interp);
/// let shared = engine.clone();
/// std::thread::spawn(move || drop(shared)).join().unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

#[derive(Debug)]
struct EngineInner {
    config: Config,
    opt: OptOptions,
    /// Registered host functions, in id order (modules snapshot them).
    host_fns: RwLock<Vec<Arc<HostFn>>>,
}

impl std::fmt::Debug for HostFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {:?}", self.name, self.sig)
    }
}

impl Default for Engine {
    /// An engine with [`Config::default`].
    fn default() -> Engine {
        Engine::build(Config::default())
    }
}

impl Engine {
    /// An engine with `config`; fails for a tier this build lacks, an
    /// optimization level above 2 or an unknown pass name.
    pub fn new(config: &Config) -> Result<Engine, Error> {
        check_tier(config.tier)?;
        if config.opt_level > 2 {
            return Err(Error::Passes(format!(
                "invalid optimization level {} (expected 0, 1 or 2)",
                config.opt_level
            )));
        }
        if let Some(p) = &config.passes {
            check_passes(p)?;
        }
        check_passes(&config.trace.print_after)?;
        Ok(Engine::build(config.clone()))
    }

    fn build(config: Config) -> Engine {
        let opt = OptOptions {
            opt_level: config.opt_level,
            passes: config.passes.clone(),
            vsdg: config.tier == Tier::Full,
            trace: config.trace.clone(),
        };
        Engine {
            inner: Arc::new(EngineInner {
                config,
                opt,
                host_fns: RwLock::new(Vec::new()),
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    pub(crate) fn opt(&self) -> &OptOptions {
        &self.inner.opt
    }

    /// Registers `f` as the host function `name` for modules compiled from
    /// now on (they call it like a builtin, type-checked against the
    /// closure's signature; see [`crate::Session::register_fn`] for the
    /// parameter and result types). Registering a name again with the same
    /// signature replaces the body for modules compiled later.
    ///
    /// ```
    /// use waddle::{Engine, Module, Store};
    /// let engine = Engine::default();
    /// engine.register_fn("twice", |x: i64| x * 2)?;
    /// let module = Module::new(&engine, "m.wdl", "fn f(x: int) -> int { return twice(x) + 1; }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let f = instance.typed_func::<(i64,), i64>(&store, "f")?;
    /// assert_eq!(f.call(&mut store, (20,))?, 41);
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn register_fn<P>(&self, name: &str, f: impl IntoHostFn<P>) -> Result<(), Error> {
        let (sig, call) = f.into_parts();
        self.add_host_fn(name, sig, call.0)
    }

    /// [`Engine::register_fn`] for a closure taking a [`crate::Caller`]
    /// first, which reaches the calling store's data
    /// ([`crate::Store::set_data`]).
    ///
    /// A closure returning `Result<T, E: Display>` is fallible: an `Err`
    /// is a runtime error at the script's call, and the store stays usable.
    /// ```
    /// use waddle::{Caller, Engine, Module, Store, TrapCode};
    /// let engine = Engine::default();
    /// engine.register_fn_with_caller(
    ///     "record",
    ///     |caller: &mut Caller<'_>, x: i64| -> Result<i64, &'static str> {
    ///         let log = caller.data_mut::<Vec<i64>>().ok_or("no log")?;
    ///         log.push(x);
    ///         Ok(log.len() as i64)
    ///     },
    /// )?;
    /// let module = Module::new(&engine, "m.wdl", "fn f(x: int) -> int { return record(x); }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let f = instance.typed_func::<(i64,), i64>(&store, "f")?;
    /// let e = f.call(&mut store, (7,)).unwrap_err();   // no data set yet
    /// assert_eq!(e.trap_code(), Some(TrapCode::HostError));
    /// store.set_data(Vec::<i64>::new());
    /// assert_eq!(f.call(&mut store, (7,))?, 1);
    /// assert_eq!(f.call(&mut store, (8,))?, 2);
    /// assert_eq!(store.data::<Vec<i64>>(), Some(&vec![7, 8]));
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn register_fn_with_caller<P>(
        &self,
        name: &str,
        f: impl IntoHostFnWithCaller<P>,
    ) -> Result<(), Error> {
        let (sig, call) = f.into_parts();
        self.add_host_fn(name, sig, call.0)
    }

    fn add_host_fn(&self, name: &str, sig: Signature, call: Box<ErasedFn>) -> Result<(), Error> {
        crate::engine::check_host_name(name)?;
        let mut table = self
            .inner
            .host_fns
            .write()
            .unwrap_or_else(|p| p.into_inner());
        let f = Arc::new(HostFn {
            name: name.to_string(),
            sig,
            call,
        });
        match table
            .iter()
            .position(|g| g.name == f.name && g.sig == f.sig)
        {
            Some(i) => table[i] = f,
            None => table.push(f),
        }
        Ok(())
    }

    /// A snapshot of the registered host functions, in id order.
    pub(crate) fn host_fns(&self) -> Vec<Arc<HostFn>> {
        self.inner
            .host_fns
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether `self` and `other` are clones of one engine.
    pub fn same(&self, other: &Engine) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
