//! Options, errors and statistics shared by every native code generator
//! (the baseline tier T1 and the Cranelift tier T2).

use std::fmt;
use std::time::Duration;

use waddle_opt::ir::FuncId;

/// Options of the native code generators (Cranelift's T2 and the baseline
/// T1, which uses only `fuel` and `disasm`).
#[derive(Clone, Debug)]
pub struct JitOptions {
    /// Let Cranelift optimize (`opt_level=speed`); otherwise `none`.
    pub optimize: bool,
    /// Count fuel at function entries and loop back edges (needed only when
    /// the host enforces an execution budget).
    pub fuel: bool,
    /// Run Cranelift's IR verifier on every function (slower compiles).
    pub verify_cranelift: bool,
    /// Keep a disassembly of each function's machine code (for `:asm`, see
    /// [`crate::CompiledProgram::disasm`]): Cranelift's own listing on
    /// T2/T3; on the baseline only with the crate's `disasm` feature
    /// (without it the baseline keeps none).
    pub disasm: bool,
    /// Cranelift instructions past which a function gets the single-pass
    /// register allocator (see [`crate::cranelift::HUGE_FUNCTION_INSTS`],
    /// the default).
    pub huge_function_insts: usize,
    /// Cranelift instructions past which a function is compiled without
    /// Cranelift's optimizer as well (see
    /// [`crate::cranelift::GIANT_FUNCTION_INSTS`], the default); never
    /// below `huge_function_insts`.
    pub giant_function_insts: usize,
    /// T2/T3: a function of more than `giant_function_insts` Waddle
    /// instructions has its long runs of pure scalar instructions compiled
    /// as separate functions of about this many instructions each (see
    /// [`crate::cranelift::SEGMENT_INSTS`], the default).
    pub segment_insts: usize,
    /// T2: load string constants through `VmCtx::strings` instead of
    /// embedding the address of the unit's own table, so the code holds no
    /// host-specific address and one unit can run for several hosts, each
    /// with its own interned constants ([`crate::NativeProgram::call_shared`]).
    /// The baseline tier always does this.
    pub strings_from_ctx: bool,
    /// A string table several units share: the unit's string constants get
    /// these indices (the ones missing from it are appended), so code of
    /// any of the units reads the right constants through one
    /// `VmCtx::strings` (the baseline tier, and T2 with
    /// `strings_from_ctx`). `None`: the unit's own table.
    pub string_table: Option<Vec<Box<str>>>,
    /// Which functions are on a call cycle, by `FuncId` index (their
    /// prologues count recursion depth, `VmCtx::depth_left`), for a unit
    /// compiled from part of a program whose other bodies are elsewhere
    /// (the cycle may pass through them). `None`: found from the unit's
    /// own program. Functions past the end are not.
    pub recursive: Option<Vec<bool>>,
    /// T1 and T2 on the host only (`auto`; not in images): count each
    /// function's calls and loop back edges in its code, starting from
    /// `(calls, back_edges)` (a decrement and a branch each, on cells the
    /// unit owns), and tell the host ([`waddle_opt::interp::Host::hot`])
    /// when one runs out, so it can promote the function to the next
    /// tier. T2 counts the prologue of each call and every back edge, not
    /// the copy of a self call it inlined. `None`: no counters.
    pub tier_counters: Option<(u32, u32)>,
}

impl JitOptions {
    /// The functions of `program` on a call cycle ([`JitOptions::recursive`]).
    pub(crate) fn recursive_functions(
        &self,
        program: &waddle_opt::ir::Program,
    ) -> cranelift_entity::SecondaryMap<FuncId, bool> {
        match &self.recursive {
            Some(r) => {
                let mut m = cranelift_entity::SecondaryMap::new();
                for (i, &on_cycle) in r.iter().enumerate() {
                    if on_cycle {
                        m[<FuncId as cranelift_entity::EntityRef>::new(i)] = true;
                    }
                }
                m
            }
            None => waddle_opt::analysis::callgraph::recursive_functions(program),
        }
    }
}

impl Default for JitOptions {
    /// Optimized, with fuel, Cranelift verifier in debug builds only.
    fn default() -> Self {
        JitOptions {
            optimize: true,
            fuel: true,
            verify_cranelift: cfg!(debug_assertions),
            disasm: false,
            huge_function_insts: crate::cranelift::HUGE_FUNCTION_INSTS,
            giant_function_insts: crate::cranelift::GIANT_FUNCTION_INSTS,
            segment_insts: crate::cranelift::SEGMENT_INSTS,
            strings_from_ctx: false,
            string_table: None,
            recursive: None,
            tier_counters: None,
        }
    }
}

/// Why a program could not be compiled.
#[derive(Debug)]
pub enum CompileError {
    /// The program fails the Waddle IR verifier.
    Verify(Vec<waddle_opt::ir::VerifyError>),
    /// The host machine or a setting is not supported by Cranelift.
    Isa(String),
    /// Cranelift rejected a function (a bug in the translation).
    Codegen {
        /// The function being compiled.
        func: String,
        /// Cranelift's message.
        message: String,
    },
}

impl fmt::Display for CompileError {
    /// One line per problem.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::Verify(errs) => {
                f.write_str("invalid IR")?;
                for e in errs {
                    write!(f, "\n  {e}")?;
                }
                Ok(())
            }
            CompileError::Isa(m) => write!(f, "unsupported target: {m}"),
            CompileError::Codegen { func, message } => {
                write!(f, "code generation failed for {func:?}: {message}")
            }
        }
    }
}

impl std::error::Error for CompileError {}

/// Per-function compile statistics.
#[derive(Clone, Debug)]
pub struct FuncStats {
    /// The function.
    pub func: FuncId,
    /// Its name.
    pub name: String,
    /// Number of Waddle IR instructions (including terminators).
    pub ir_insts: usize,
    /// Time spent before machine-code emission (translation to Cranelift IR,
    /// or the baseline tier's planning).
    pub translate: Duration,
    /// Time spent emitting machine code (in Cranelift: optimization, register
    /// allocation, emission).
    pub codegen: Duration,
    /// Size of the machine code in bytes.
    pub code_size: usize,
    /// Offset in the machine code of the header of the (first) innermost
    /// loop, or 0 (the entry) without a loop or on the baseline tier: the
    /// Cranelift tiers place this offset at the start of a
    /// [`crate::cranelift::CODE_ALIGN`]-byte block (or as close as several
    /// equally deep loops and the function's own alignment allow).
    pub hot_offset: usize,
}

impl FuncStats {
    /// The statistics of compiling `func` (id `id`).
    pub(crate) fn new(
        id: FuncId,
        func: &waddle_opt::ir::Function,
        translate: Duration,
        codegen: Duration,
        code_size: usize,
    ) -> FuncStats {
        FuncStats {
            func: id,
            name: func.name().to_string(),
            ir_insts: func.inst_count(),
            translate,
            codegen,
            code_size,
            hot_offset: 0,
        }
    }
}

/// Statistics of one compilation unit.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// One entry per compiled function (trampolines excluded).
    pub funcs: Vec<FuncStats>,
    /// Time spent building trampolines (translation and codegen).
    pub trampolines: Duration,
    /// Wall time of the whole compile call.
    pub total: Duration,
}
