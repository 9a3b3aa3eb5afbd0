//! The native code cache: compilation units of the native tiers, the
//! function → unit map, entry-slot linking between units, and freeing of
//! replaced code.
//!
//! A *unit* is one call of a native code generator (a `JITModule` for T2
//! and T3, one dynasmrt buffer for T1) over a set of functions; the other functions of the program appear
//! in it as declarations whose entry slots point at their code in other
//! units. Installing a unit
//! 1. compiles it and interns its string constants,
//! 2. makes it the *owner* of its functions (the previous owners lose them),
//! 3. links: the new unit's slots get every other native function's current
//!    code, and every older unit's slots for the new functions get the new
//!    code (so all callers see a redefinition at once, docs/architecture.md "Tiers"),
//! 4. frees every unit that owns no function any more.
//!
//! Freeing is safe because the engine never installs, invalidates or frees
//! while Waddle code runs (installing happens between entries and calls,
//! and nothing in Waddle code can re-enter the engine). So REPL
//! redefinitions hold at most one unit per live function: memory stays
//! bounded however often a function is redefined.

use cranelift_entity::EntityRef;
use waddle_jit::{JitOptions, NativeProgram};
use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, Function, Program};

use crate::driver::Tier;

/// Why native code could not be made or installed.
#[derive(Debug)]
pub(crate) enum InstallError {
    /// The tier has no native code generator (the interpreter, `auto`).
    NoCodeGenerator(Tier),
    /// The tier cannot run in this build or on this host.
    Unavailable(Tier),
    /// Units with and without fuel checks cannot call each other.
    MixedFuel,
    /// The code generator rejected the program.
    Compile(waddle_jit::CompileError),
}

impl std::fmt::Display for InstallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstallError::NoCodeGenerator(t) => {
                write!(f, "tier `{t}` has no native code generator")
            }
            InstallError::Unavailable(t) => write!(f, "tier `{t}` is not available in this build"),
            InstallError::MixedFuel => {
                f.write_str("native units with and without fuel cannot be mixed")
            }
            InstallError::Compile(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for InstallError {}

/// One compilation unit.
struct Unit {
    program: Box<dyn NativeProgram>,
    tier: Tier,
    /// How many of them it still owns.
    live: usize,
}

/// The native code of an engine's functions.
pub(crate) struct NativeCode {
    units: Vec<Option<Unit>>,
    /// The unit running each function, by `FuncId` index.
    owner: Vec<Option<usize>>,
    stack_budget: usize,
    /// Whether the code counts fuel (compiled for a host with a budget).
    fuel: bool,
}

impl NativeCode {
    /// An empty cache whose units get `stack_budget`.
    pub(crate) fn new(stack_budget: usize) -> NativeCode {
        NativeCode {
            units: Vec::new(),
            owner: Vec::new(),
            stack_budget,
            fuel: false,
        }
    }

    /// Whether `func` has native code.
    pub(crate) fn has(&self, func: FuncId) -> bool {
        self.owner.get(func.index()).is_some_and(Option::is_some)
    }

    /// The tier of `func`'s native code.
    pub(crate) fn tier_of(&self, func: FuncId) -> Option<Tier> {
        let u = (*self.owner.get(func.index())?)?;
        self.units[u].as_ref().map(|u| u.tier)
    }

    /// Whether a live unit was compiled by `tier`.
    pub(crate) fn has_tier(&self, tier: Tier) -> bool {
        self.units.iter().flatten().any(|u| u.tier == tier)
    }

    /// Whether no function has native code.
    pub(crate) fn is_empty(&self) -> bool {
        self.units.iter().all(Option::is_none)
    }

    /// Whether the installed code counts fuel.
    pub(crate) fn counts_fuel(&self) -> bool {
        self.fuel
    }

    /// Forgets `func`'s native code (its body changed or it was removed);
    /// frees its unit if that was the unit's last function.
    pub(crate) fn invalidate(&mut self, func: FuncId) {
        if let Some(Some(u)) = self.owner.get(func.index()).copied() {
            self.owner[func.index()] = None;
            self.release(u);
        }
    }

    /// Drops all native code.
    pub(crate) fn clear(&mut self) {
        self.units.clear();
        self.owner.clear();
    }

    fn release(&mut self, u: usize) {
        if let Some(unit) = self.units[u].as_mut() {
            unit.live -= 1;
            if unit.live == 0 {
                self.units[u] = None;
            }
        }
    }

    /// Compiles `funcs` of `program` with `tier` into a new unit and links
    /// it (see the module docs). `fuel` must be the same for every unit.
    pub(crate) fn install(
        &mut self,
        program: &Program,
        funcs: &[FuncId],
        tier: Tier,
        fuel: bool,
        host: &mut dyn Host,
    ) -> Result<(), InstallError> {
        if funcs.is_empty() {
            return Ok(());
        }
        if !self.is_empty() && fuel != self.fuel {
            return Err(InstallError::MixedFuel);
        }
        let unit_program = unit_program(program, funcs);
        let mut compiled = compile_unit(&unit_program, tier, fuel, false)?;
        compiled.set_stack_budget(self.stack_budget);
        compiled.bind_strings(host);
        self.fuel = fuel;
        let u = match self.units.iter().position(Option::is_none) {
            Some(free) => free,
            None => {
                self.units.push(None);
                self.units.len() - 1
            }
        };
        if self.owner.len() < program.funcs.len() {
            self.owner.resize(program.funcs.len(), None);
        }
        // Slots of the new unit: every other function's current code.
        let others: Vec<(FuncId, usize)> = self
            .owner
            .iter()
            .enumerate()
            .filter_map(|(i, o)| {
                let f = FuncId::new(i);
                let o = (*o)?;
                if funcs.contains(&f) {
                    return None;
                }
                let code = self.units[o].as_ref()?.program.code(f)?;
                Some((f, code.as_ptr() as usize))
            })
            .collect();
        for (f, code) in others {
            // SAFETY: `code` is `f`'s native code in a live unit; a unit is
            // freed only when it owns no function, and then no slot of a
            // live unit points into it (owners' code is what slots hold).
            unsafe { compiled.set_entry(f, code as *const u8) };
        }
        // Slots of the older units: the new code.
        let new_code: Vec<(FuncId, usize)> = funcs
            .iter()
            .filter_map(|&f| Some((f, compiled.code(f)?.as_ptr() as usize)))
            .collect();
        for unit in self.units.iter_mut().flatten() {
            for &(f, code) in &new_code {
                // SAFETY: as above.
                unsafe { unit.program.set_entry(f, code as *const u8) };
            }
        }
        for &(f, _) in &new_code {
            self.invalidate(f);
        }
        for &(f, _) in &new_code {
            self.owner[f.index()] = Some(u);
        }
        self.units[u] = Some(Unit {
            program: compiled,
            tier,
            live: new_code.len(),
        });
        if new_code.is_empty() {
            self.units[u] = None;
        }
        Ok(())
    }

    /// Runs `func` natively; `None` when it has no native code.
    pub(crate) fn call(
        &mut self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
    ) -> Option<Result<Word, Trap>> {
        let u = (*self.owner.get(func.index())?)?;
        let unit = self.units[u].as_mut()?;
        Some(unit.program.call(host, func, args))
    }

    /// The machine code of `func`, if native.
    pub(crate) fn code(&self, func: FuncId) -> Option<&[u8]> {
        let u = (*self.owner.get(func.index())?)?;
        self.units[u].as_ref()?.program.code(func)
    }

    /// Live units and the machine-code bytes they hold.
    pub(crate) fn memory(&self) -> (usize, usize) {
        let live = self.units.iter().flatten();
        let bytes = live.clone().map(|u| u.program.code_bytes()).sum();
        (live.count(), bytes)
    }
}

/// `program` with only `funcs` keeping their bodies: the rest become
/// declarations (same ids, names and signatures) the unit links against.
pub(crate) fn unit_program(program: &Program, funcs: &[FuncId]) -> Program {
    let mut keep = vec![false; program.funcs.len()];
    for f in funcs {
        if let Some(k) = keep.get_mut(f.index()) {
            *k = true;
        }
    }
    let mut p = Program {
        globals: program.globals.clone(),
        host_fns: program.host_fns.clone(),
        ..Program::default()
    };
    for (id, f) in program.funcs.iter() {
        if keep[id.index()] {
            p.funcs.push(f.clone());
        } else {
            let mut decl = Function::new(f.name.clone(), f.sig.clone());
            decl.loc = f.loc;
            p.funcs.push(decl);
        }
    }
    p
}

/// Runs the native code generator of `tier` (the one place that names each
/// native tier). With `shared`, the code loads its string constants through
/// the context, so the unit can run for many stores
/// ([`waddle_jit::NativeProgram::call_shared`]).
pub(crate) fn compile_unit(
    program: &Program,
    tier: Tier,
    fuel: bool,
    shared: bool,
) -> Result<Box<dyn NativeProgram>, InstallError> {
    let opts = JitOptions {
        fuel,
        strings_from_ctx: shared,
        ..JitOptions::default()
    };
    let native = tier.native().ok_or(InstallError::NoCodeGenerator(tier))?;
    waddle_jit::compile(native, program, &opts).map_err(InstallError::Compile)
}
