//! [`Module`]: a program compiled once, shareable by any number of stores
//! on any thread.
//!
//! What is shared and what is per store:
//! - the optimized IR and, for the native tiers, one compilation unit of
//!   machine code are built by [`Module::new`] and shared (behind an `Arc`)
//!   by every store that instantiates the module. The unit's code holds no
//!   store-specific address: globals, the heap and the host come from the
//!   context each call sets up, and string constants are loaded through
//!   the context's string table (T2 compiles with
//!   `JitOptions::strings_from_ctx`; T1 always does), which every store
//!   fills with its own interned copies when it instantiates the module.
//! - the interpreter's prepared code resolves string constants to objects
//!   of one heap, so each store prepares it lazily for itself, the first
//!   time it runs something on the interpreter (tier `interp`, or `auto`).
//! - `auto` compiles nothing up front: each store's executor starts every
//!   function on the interpreter and promotes hot ones by counters into
//!   units of its own (`engine::tiering`).

use std::sync::Arc;

use cranelift_entity::EntityRef;

use rustc_hash::FxHashMap;
use waddle_frontend::{CompileOptions, Prelude};
use waddle_jit::NativeProgram;
use waddle_opt::ir::{FuncId, Program};

use super::engine::Engine;
use super::func::CallPlan;
use crate::engine::{compile_program, native, panic_error, tiering, CompiledProgram, PassLog};
use crate::error::Error;
use crate::hostfn::{ffi, HostFn};
use crate::types::{FuncType, ValType};
use crate::Tier;

/// A Waddle program parsed, checked, lowered, optimized and (on the native
/// tiers) compiled to machine code once.
///
/// `Send + Sync`, cheap to clone (an `Arc`): instantiate it in as many
/// [`crate::Store`]s as needed, on any thread, without recompiling.
///
/// ```
/// use waddle::{Engine, Module, Store};
/// let engine = Engine::default();
/// let module = Module::new(&engine, "add.wdl", "fn add(a: int, b: int) -> int { return a + b; }")?;
/// let handles: Vec<_> = (0..2).map(|i| {
///     let (engine, module) = (engine.clone(), module.clone());
///     std::thread::spawn(move || {
///         let mut store = Store::new(&engine);
///         let instance = store.instantiate(&module).unwrap();
///         let add = instance.typed_func::<(i64, i64), i64>(&store, "add").unwrap();
///         add.call(&mut store, (i, 40)).unwrap()
///     })
/// }).collect();
/// let sums: Vec<i64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
/// assert_eq!(sums, [40, 41]);
/// # Ok::<(), waddle::Error>(())
/// ```
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

pub(crate) struct ModuleInner {
    pub(crate) engine: Engine,
    pub(crate) name: String,
    /// The optimized program (top-level code is `program.main`).
    pub(crate) program: Program,
    /// Function ids by name.
    pub(crate) funcs: FxHashMap<String, FuncId>,
    /// The native unit, if the tier compiles natively.
    pub(crate) native: Option<Box<dyn NativeProgram>>,
    /// Per function: whether it has native code in `native`.
    pub(crate) is_native: Vec<bool>,
    /// Per function (by index): how Rust calls it, with its entry in
    /// `native` when it has native code there (worked out once, so a call
    /// needs no lookup).
    pub(crate) plans: Vec<CallPlan>,
    /// The tier the native unit was compiled by.
    pub(crate) native_tier: Option<Tier>,
    /// What the optimizer reported ([`crate::Config::trace`]).
    pub(crate) pass_log: PassLog,
    /// The host functions the code calls, by `HostFnId`: the engine's at
    /// compile time, then the module's `extern` functions.
    pub(crate) host_fns: Vec<Arc<HostFn>>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("name", &self.inner.name)
            .field("functions", &self.inner.funcs.len())
            .field("native_tier", &self.inner.native_tier)
            .finish()
    }
}

impl Module {
    /// Compiles `source` (called `name` in error locations) with `engine`'s
    /// settings. Compile errors come back as [`Error::Compile`]; on tier
    /// `auto` a native code generator failure falls back to the
    /// interpreter, on an explicit native tier it is an error.
    pub fn new(engine: &Engine, name: &str, source: &str) -> Result<Module, Error> {
        let (compiled, host_fns) = compile_with_host_fns(engine, name, source)?;
        let CompiledProgram {
            typed,
            optimized: program,
            log: pass_log,
        } = compiled;
        drop(typed);
        let config = engine.config();
        let tier = config.tier;
        let mut is_native = vec![false; program.funcs.len()];
        let mut native = None;
        let mut native_tier = None;
        // `auto` compiles per store, by counters (`engine::exec`).
        let eager = tiering::native_tier(tier).filter(|_| tier != Tier::Auto);
        if let Some(ntier) = eager {
            let funcs: Vec<FuncId> = program
                .funcs
                .iter()
                .filter(|(_, f)| !f.is_declaration())
                .map(|(id, _)| id)
                .collect();
            let unit = if funcs.is_empty() {
                Ok(None)
            } else {
                // `funcs` is every function with a body, so the program is
                // its own unit (no copy of it: `native::unit_program`).
                let fuel = config.interruptible;
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    native::compile_unit(&program, ntier, fuel, true)
                }))
                .map_err(|p| panic_error("the code generator", p))
                .and_then(|r| {
                    r.map_err(|e| Error::Internal(format!("native code generation failed: {e}")))
                })
                .map(Some)
            };
            match unit {
                Ok(Some(mut unit)) => {
                    unit.set_stack_budget(config.stack_budget);
                    for &f in &funcs {
                        is_native[f.index()] = unit.code(f).is_some();
                    }
                    native = Some(unit);
                    native_tier = Some(ntier);
                }
                Ok(None) => {}
                Err(e) => return Err(e),
            }
        } else {
            crate::engine::check_tier(tier)?;
        }
        let plans = (program.funcs.iter())
            .map(|(id, f)| {
                let entry = (native.as_ref())
                    .filter(|_| is_native[id.index()])
                    .and_then(|unit| unit.entry(id));
                CallPlan::new(id, f.sig(), entry)
            })
            .collect();
        let funcs = program
            .funcs
            .iter()
            .filter(|(id, _)| Some(*id) != program.main)
            .map(|(id, f)| (f.name().to_string(), id))
            .collect();
        Ok(Module {
            inner: Arc::new(ModuleInner {
                engine: engine.clone(),
                name: name.to_string(),
                program,
                funcs,
                native,
                is_native,
                plans,
                native_tier,
                pass_log,
                host_fns,
            }),
        })
    }

    pub(crate) fn inner(&self) -> &ModuleInner {
        &self.inner
    }

    /// The name given to [`Module::new`].
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The engine the module was compiled with.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The module's functions (not its top-level code) with their types,
    /// in declaration order.
    ///
    /// ```
    /// use waddle::{Engine, Module, ValType};
    /// let source = "let n = 3;\nfn scale(xs: [float], k: float) -> [float] { return xs; }";
    /// let module = Module::new(&Engine::default(), "m.wdl", source)?;
    /// let funcs: Vec<_> = module.functions().collect();
    /// assert_eq!(funcs.len(), 1);
    /// assert_eq!(funcs[0].0, "scale");
    /// assert_eq!(funcs[0].1.to_string(), "([float], float) -> [float]");
    /// assert_eq!(funcs[0].1.params[1], ValType::FLOAT);
    /// assert_eq!(module.globals().collect::<Vec<_>>(), [("n", ValType::INT)]);
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn functions(&self) -> impl Iterator<Item = (&str, FuncType)> {
        let p = &self.inner.program;
        p.funcs
            .iter()
            .filter(move |(id, _)| Some(*id) != p.main)
            .map(|(_, f)| (f.name(), FuncType::of(f.sig())))
    }

    /// The module's globals with their types, in declaration order.
    pub fn globals(&self) -> impl Iterator<Item = (&str, ValType)> {
        self.inner
            .program
            .globals
            .values()
            .map(|g| (g.name.as_str(), ValType(g.ty)))
    }

    /// The tier that runs function `name`: the native tier when it was
    /// compiled to machine code, else [`Tier::Interp`]; `None` when there
    /// is no such function.
    pub fn function_tier(&self, name: &str) -> Option<Tier> {
        let id = *self.inner.funcs.get(name)?;
        Some(if self.inner.is_native[id.index()] {
            self.inner.native_tier.unwrap_or(Tier::Interp)
        } else {
            Tier::Interp
        })
    }

    /// What the optimizer reported while compiling the module (pass times
    /// and printed functions, as [`crate::Config::trace`] asked).
    pub fn pass_log(&self) -> &PassLog {
        &self.inner.pass_log
    }

    /// Bytes of machine code the module holds (0 on the interpreter).
    pub fn native_code_bytes(&self) -> usize {
        self.inner.native.as_ref().map_or(0, |u| u.code_bytes())
    }
}

impl ModuleInner {
    /// How Rust calls `func` of this module.
    #[inline]
    pub(crate) fn plan(&self, func: FuncId) -> Option<&CallPlan> {
        self.plans.get(func.index())
    }

    /// The function `name` (not top-level code).
    pub(crate) fn func(&self, name: &str) -> Result<FuncId, Error> {
        self.funcs
            .get(name)
            .copied()
            .ok_or_else(|| Error::UnknownFunction(name.to_string()))
    }
}

/// Compiles `source` against the engine's host functions (a snapshot) and
/// loads its `extern` declarations (an unloadable library or a missing
/// symbol is a compile error at the declaration).
fn compile_with_host_fns(
    engine: &Engine,
    name: &str,
    source: &str,
) -> Result<(CompiledProgram, Vec<Arc<HostFn>>), Error> {
    let mut host_fns = engine.host_fns();
    let options = CompileOptions {
        prelude: Prelude {
            host_functions: (host_fns.iter())
                .map(|f| (f.name.clone(), f.sig.clone()))
                .collect(),
            ..Prelude::default()
        },
        repl: false,
        allow_ffi: engine.config().allow_ffi,
    };
    let compiled = compile_program(name, source, options, engine.opt())?;
    for (want, f) in ffi::load_externs(&compiled.typed, name, source)? {
        if want as usize != host_fns.len() {
            return Err(Error::Internal(format!(
                "extern function got host id {}, the frontend expected h{want}",
                host_fns.len()
            )));
        }
        host_fns.push(Arc::new(f));
    }
    Ok((compiled, host_fns))
}
