//! The optimizing code generator (tier T2): Waddle IR → Cranelift IR →
//! machine code in a [`JITModule`].
//!
//! Each call of [`compile`] is one compilation unit with its own
//! `JITModule`, whose memory is freed as a whole when the
//! [`CompiledProgram`] is dropped (cranelift-jit cannot free single
//! functions). Code memory is W^X: cranelift-jit writes code into
//! read-write pages and makes them read-execute (never both) in
//! `finalize_definitions`, before any of it runs.

mod place;
mod stub;
mod trampoline;
pub(crate) mod translate;
pub(crate) mod unwind;

use std::fmt;
use std::time::Instant;

use cranelift_codegen::ir::UserFuncName;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_entity::EntityRef;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::FuncId as ClifFuncId;
use cranelift_module::{default_libcall_names, Linkage, Module};
use waddle_opt::abi::Word;
use waddle_opt::ir::{verify_program, FuncId as WFuncId, Program};

use crate::entry::FuncInfo;
use crate::options::{CompileError, CompileStats, FuncStats, JitOptions};
use crate::program::CompiledProgram;
use crate::tables::{collect_strings, globals_used};
use translate::{native_signature, segment, Addressing, Env, Translator};

pub use place::CODE_ALIGN;
pub use stub::{compile_stubs, InterpStubs};

/// Cranelift instructions past which a function is register-allocated by
/// the single-pass allocator (by default, see
/// [`JitOptions::huge_function_insts`]): regalloc2's backtracking allocator merges the
/// live ranges of long block-parameter chains (a variable carried through
/// thousands of branches) in time quadratic in the chain, while the
/// single-pass allocator is linear; so huge functions compile in
/// near-linear time, at some cost in code quality.
pub const HUGE_FUNCTION_INSTS: usize = 20_000;

/// Arguments of one call (or parameters of one function) past which the
/// function is register-allocated by the single-pass allocator too, and so
/// is the entry trampoline of a function with that many parameters:
/// regalloc2's backtracking allocator searches conflicts among all the
/// values live at a call for each of its fixed argument locations, in time
/// quadratic in the argument count (a 5 000-argument call took 1 s, its
/// trampoline 0.4 s; twice as many, four times as long).
pub const WIDE_OPERANDS: usize = 256;

/// Cranelift instructions past which a function is also compiled without
/// Cranelift's optimizer (`opt_level=none`; by default, see
/// [`JitOptions::giant_function_insts`]). The e-graph pass's hash tables
/// outgrow the caches on such functions: it took half of the machine-code
/// time of a 500 000-statement function, and that time grew 2.8x per
/// doubling (1.7 s at 250 000 statements, 4.8 s at 500 000), against
/// 1.9x and 1.7 s at 500 000 without it. The Waddle passes have already
/// done value numbering, constant propagation and loop-invariant code
/// motion on the IR; what such a function loses is Cranelift's own
/// clean-up of the translation (merged and hoisted loads of array data
/// pointers, folded immediates).
pub const GIANT_FUNCTION_INSTS: usize = 100_000;

/// Instructions per segment of a giant function (by default, see
/// [`JitOptions::segment_insts`]): the runs of pure scalar instructions of
/// a function past [`JitOptions::giant_function_insts`] are compiled as
/// functions of their own of 5 000 to 10 000 instructions
/// ([`translate::segment`]). Cranelift's time per instruction grows with
/// the function, whose tables outgrow the caches: ten functions of
/// 100 000 statements took 1.4 s of machine-code time where one of
/// 1 000 000 took 2.3-2.5 s.
pub const SEGMENT_INSTS: usize = 10_000;

/// Whether T2 code keeps the context pointer in Cranelift's pinned register
/// (`translate::Env::pinned_ctx`). Off: reading the register costs a move
/// at every use and the allocator loses a register in every function, and
/// the suite's loop kernels ran 3-7% slower (`loops` 5% more
/// instructions), while fib, where the context is live across calls,
/// gained nothing measurable over an allocation that keeps the context in
/// a callee-saved register. On, the allocator can never spill the
/// context (when it did, fib ran 2x slower); turning it on per function
/// (recursive ones) is compatible, since each pinned function saves and
/// restores the register itself.
const PINNED_CTX: bool = false;

/// The settings a function is compiled with, by its size.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Size {
    /// The module's settings: optimized, backtracking register allocator.
    Normal,
    /// Past [`JitOptions::huge_function_insts`] or [`WIDE_OPERANDS`]: the
    /// single-pass register allocator.
    Huge,
    /// Past [`JitOptions::giant_function_insts`] too: the single-pass
    /// allocator and no Cranelift optimizer.
    Giant,
}

impl Size {
    /// The size class of a function of `insts` Cranelift instructions
    /// (`wide`: with more than [`WIDE_OPERANDS`] parameters or call
    /// arguments).
    fn of(insts: usize, wide: bool, opts: &JitOptions) -> Size {
        if insts > opts.giant_function_insts.max(opts.huge_function_insts) {
            Size::Giant
        } else if insts > opts.huge_function_insts || wide {
            Size::Huge
        } else {
            Size::Normal
        }
    }
}

/// The ISAs of the [`Size`] classes other than [`Size::Normal`] (the
/// module's), made on first use.
#[derive(Default)]
struct SizedIsas {
    huge: Option<cranelift_codegen::isa::OwnedTargetIsa>,
    giant: Option<cranelift_codegen::isa::OwnedTargetIsa>,
}

/// Whether `f` has more than [`WIDE_OPERANDS`] parameters or call
/// arguments.
fn has_wide_operands(f: &waddle_opt::ir::Function) -> bool {
    f.sig().params.len() > WIDE_OPERANDS
        || f.layout().iter().any(|&b| {
            f.blocks()[b].insts.iter().any(|&i| {
                let mut n = 0;
                f.inst(i).kind.for_each_arg(|_| n += 1);
                n > WIDE_OPERANDS
            })
        })
}

/// The Cranelift ISA for the host, with Waddle's settings for functions of
/// `size`.
fn host_isa(
    opts: &JitOptions,
    size: Size,
) -> Result<cranelift_codegen::isa::OwnedTargetIsa, CompileError> {
    let isa_err = |e: &dyn fmt::Display| CompileError::Isa(e.to_string());
    let mut fb = settings::builder();
    let opt = if opts.optimize && size != Size::Giant {
        "speed"
    } else {
        "none"
    };
    let huge = size != Size::Normal;
    let verify = if opts.verify_cranelift {
        "true"
    } else {
        "false"
    };
    for (k, v) in [
        ("opt_level", opt),
        ("enable_verifier", verify),
        ("use_colocated_libcalls", "false"),
        ("is_pic", "false"),
        ("enable_probestack", "true"),
        ("probestack_strategy", "inline"),
        ("unwind_info", "false"),
        // The context pointer in the pinned register (x86-64 `r15`,
        // AArch64 `x21`), see [`PINNED_CTX`].
        (
            "enable_pinned_reg",
            if PINNED_CTX { "true" } else { "false" },
        ),
        // The block layout, for placing each function's hot loop
        // (`place::hot_offsets`).
        ("machine_code_cfg_info", "true"),
        (
            "regalloc_algorithm",
            if huge { "single_pass" } else { "backtracking" },
        ),
    ] {
        fb.set(k, v).map_err(|e| isa_err(&e))?;
    }
    let isa_builder = cranelift_native::builder().map_err(|e| isa_err(&e))?;
    isa_builder
        .finish(settings::Flags::new(fb))
        .map_err(|e| isa_err(&e))
}

/// Compiles every function with a body of `program` to machine code.
///
/// The program must pass the IR verifier. String constants are interned
/// through the host of the first [`CompiledProgram::call`].
pub fn compile(program: &Program, opts: &JitOptions) -> Result<CompiledProgram, CompileError> {
    let start = Instant::now();
    verify_program(program).map_err(CompileError::Verify)?;
    let isa = host_isa(opts, Size::Normal)?;
    let mut isas = SizedIsas::default();
    let call_conv = isa.default_call_conv();
    let reservation = place::Reservation::default();
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    builder.memory_provider(Box::new(place::PlacedMemory::new(reservation.clone())));
    let mut module = JITModule::new(builder);
    let (texts, string_index) = collect_strings(program, opts.string_table.as_deref());
    let strings: Box<[Word]> = vec![0; texts.len().max(1)].into_boxed_slice();
    let counters = crate::tables::tier_counter_cells(opts, program.funcs.len());
    let env = Env {
        program,
        call_conv,
        string_table: strings.as_ptr() as usize,
        string_index: &string_index,
        fuel: opts.fuel,
        recursive: opts.recursive_functions(program),
        frontend: module.target_config(),
        addressing: Addressing::Absolute,
        strings_from_ctx: opts.strings_from_ctx,
        counters: (!counters.is_empty()).then_some(counters.as_ptr() as usize),
        pinned_ctx: PINNED_CTX,
    };
    let mut stats = CompileStats::default();
    let mut tramp_bytes = 0;
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    // Recursive functions whose traps unwind their self calls: (function,
    // body id, shell id), and their unwinding tables (in the same order).
    let mut shells: Vec<(WFuncId, ClifFuncId, ClifFuncId)> = Vec::new();
    let mut unwind_tables: Vec<Box<unwind::UnwindTable>> = Vec::new();
    let codegen_err = |func: &str, e: &dyn fmt::Debug| CompileError::Codegen {
        func: func.to_string(),
        message: format!("{e:?}"),
    };
    for (fid, f) in program.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        let sig = native_signature(&f.sig().params, f.sig().ret, call_conv);
        let name = format!("wdl_f{}", fid.index());
        let id = module
            .declare_function(&name, Linkage::Local, &sig)
            .map_err(|e| codegen_err(f.name(), &e))?;
        let t0 = Instant::now();
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, fid.index() as u32);
        // Self calls of a recursive function call its own code directly
        // (`Translator::run` says why the slot is not needed), except in
        // code with tiering counters (`auto`'s T2): there they go through
        // the slot, so a recursion moves to T3 code, which does not count,
        // as soon as it is installed instead of finishing in counting code
        // (fib's whole call tree below the first T2 frame). Traps unwind
        // past untested self calls only where those direct calls exist.
        let direct_self = env.recursive[fid] && env.counters.is_none();
        let self_call = direct_self.then(|| (fid, module.declare_func_in_func(id, &mut ctx.func)));
        let unwinds = unwind::SUPPORTED
            && direct_self
            && unwind::calls_itself(f, fid)
            && unwind::register_args(f);
        let mut table = unwinds.then(|| {
            Box::new(unwind::UnwindTable {
                func: fid.index() as u32,
                ..Default::default()
            })
        });
        let table_addr = table
            .as_deref()
            .map(|t| t as *const unwind::UnwindTable as usize);
        let mut segments = Vec::new();
        if self_call.is_none() && f.inst_count() > opts.giant_function_insts {
            for (k, seg) in segment::plan(f, opts.segment_insts).into_iter().enumerate() {
                let sig = segment::signature(f, &seg, call_conv);
                let name = format!("wdl_f{}_s{k}", fid.index());
                let id = module
                    .declare_function(&name, Linkage::Local, &sig)
                    .map_err(|e| codegen_err(f.name(), &e))?;
                let fref = module.declare_func_in_func(id, &mut ctx.func);
                segments.push((seg, fref, id, sig));
            }
        }
        let segment_refs: Vec<_> = segments
            .iter()
            .map(|(seg, fref, ..)| (seg.clone(), *fref))
            .collect();
        let translated = Translator::run(
            &env,
            fid,
            f,
            env.recursive[fid],
            self_call,
            table_addr,
            &segment_refs,
            FunctionBuilder::new(&mut ctx.func, &mut fctx),
        );
        let mut t1 = Instant::now();
        ctx.set_disasm(opts.disasm);
        let size = Size::of(ctx.func.dfg.num_insts(), has_wide_operands(f), opts);
        let hot = define(
            (&mut module, &reservation),
            &mut isas,
            (size, true),
            opts,
            (f.name(), id),
            &mut ctx,
        )?;
        let code_size = ctx.compiled_code().map_or(0, |c| c.code_buffer().len());
        let disasm = ctx.compiled_code().and_then(|c| c.vcode.clone());
        if let (Some(t), Some(code)) = (&mut table, ctx.compiled_code()) {
            t.sites = unwind::body_sites(code, &translated.sites);
            t.tail = translated
                .tail
                .map(|(slot, loc)| (unwind::slot_offset(code, slot), loc));
        }
        let mut translate_time = t1 - t0;
        let mut codegen_time = t1.elapsed();
        module.clear_context(&mut ctx);
        // The segments, with the giant function's settings.
        let mut vals = cranelift_entity::SecondaryMap::new();
        let mut segment_bytes = 0;
        for (k, (seg, _, id, sig)) in segments.into_iter().enumerate() {
            let t0 = Instant::now();
            ctx.func.signature = sig;
            ctx.func.name = UserFuncName::user(2, k as u32);
            segment::translate(
                f,
                &seg,
                &mut vals,
                FunctionBuilder::new(&mut ctx.func, &mut fctx),
                env.frontend,
            );
            t1 = Instant::now();
            define(
                (&mut module, &reservation),
                &mut isas,
                (Size::Giant, false),
                opts,
                (f.name(), id),
                &mut ctx,
            )?;
            segment_bytes += ctx.compiled_code().map_or(0, |c| c.code_buffer().len());
            module.clear_context(&mut ctx);
            translate_time += t1 - t0;
            codegen_time += t1.elapsed();
        }
        stats.funcs.push(FuncStats {
            hot_offset: hot as usize,
            ..FuncStats::new(
                fid,
                f,
                translate_time,
                codegen_time,
                code_size + segment_bytes,
            )
        });
        ids.push((fid, id, code_size, disasm));
        if let Some(table) = &table {
            let sig = native_signature(&f.sig().params, f.sig().ret, call_conv);
            let shell = module
                .declare_function(&format!("wdl_s{}", fid.index()), Linkage::Local, &sig)
                .map_err(|e| codegen_err(f.name(), &e))?;
            let bytes = unwind::shell_bytes(&**table as *const unwind::UnwindTable as usize);
            module
                .define_function_bytes(shell, 16, &bytes, &[])
                .map_err(|e| codegen_err(f.name(), &e))?;
            tramp_bytes += bytes.len();
            shells.push((fid, id, shell));
        }
        unwind_tables.extend(table);
    }
    let t0 = Instant::now();
    let mut tramps = Vec::new();
    for (fid, f) in program.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        let sig = trampoline::trampoline_signature(call_conv);
        let name = format!("wdl_t{}", fid.index());
        let id = module
            .declare_function(&name, Linkage::Local, &sig)
            .map_err(|e| codegen_err(f.name(), &e))?;
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(1, fid.index() as u32);
        trampoline::build(
            FunctionBuilder::new(&mut ctx.func, &mut fctx),
            f.sig(),
            fid.index(),
            call_conv,
            env.frontend,
        );
        let size = if f.sig().params.len() > WIDE_OPERANDS {
            Size::Huge
        } else {
            Size::Normal
        };
        define(
            (&mut module, &reservation),
            &mut isas,
            (size, false),
            opts,
            (f.name(), id),
            &mut ctx,
        )?;
        tramp_bytes += ctx.compiled_code().map_or(0, |c| c.code_buffer().len());
        module.clear_context(&mut ctx);
        tramps.push((fid, id));
    }
    module
        .finalize_definitions()
        .map_err(|e| codegen_err("<module>", &e))?;
    stats.trampolines = t0.elapsed();
    let mut infos: Vec<FuncInfo> = program
        .funcs
        .values()
        .map(|f| FuncInfo {
            name: f.name().to_string(),
            params: f.sig().params.len(),
            loc: f.loc(),
            code: 0,
            entry: 0,
            code_size: 0,
            trampoline: 0,
            disasm: None,
        })
        .collect();
    for (fid, id, size, disasm) in ids {
        let info = &mut infos[fid.index()];
        info.code = module.get_finalized_function(id) as usize;
        info.entry = info.code;
        info.code_size = size;
        info.disasm = disasm;
    }
    for (fid, id) in tramps {
        infos[fid.index()].trampoline = module.get_finalized_function(id) as usize;
    }
    for ((fid, body, shell), table) in shells.into_iter().zip(&mut unwind_tables) {
        table.body = module.get_finalized_function(body) as usize;
        infos[fid.index()].entry = module.get_finalized_function(shell) as usize;
    }
    let max_global = globals_used(program);
    let code_bytes = tramp_bytes + stats.funcs.iter().map(|f| f.code_size).sum::<usize>();
    stats.total = start.elapsed();
    let mut compiled =
        CompiledProgram::new(module, infos, strings, texts, max_global, stats, counters);
    compiled.keep_unwind_tables(unwind_tables.into_boxed_slice());
    compiled.account_code_bytes(code_bytes);
    Ok(compiled)
}

/// Compiles `ctx`'s function and defines it as `id` in `module`: with the
/// module's ISA, or, for a function of another [`Size`] (too many
/// instructions or operands for the backtracking register allocator or the
/// optimizer), with that size's ISA from `isas` (made on first use). With
/// `placed`, the function is placed so that its innermost loop header (or
/// its entry) starts a [`place::CODE_ALIGN`]-byte block ([`place`]);
/// trampolines and shells, which run once per call from Rust, are packed.
/// Returns the function's first hot offset ([`place::hot_offsets`]; 0
/// without one or unless `placed`).
fn define(
    (module, reservation): (&mut JITModule, &place::Reservation),
    isas: &mut SizedIsas,
    (size, placed): (Size, bool),
    opts: &JitOptions,
    (name, id): (&str, cranelift_module::FuncId),
    ctx: &mut cranelift_codegen::Context,
) -> Result<u32, CompileError> {
    let err = |e: &dyn fmt::Debug| CompileError::Codegen {
        func: name.to_string(),
        message: format!("{e:?}"),
    };
    let slot = match size {
        Size::Normal => None,
        Size::Huge => Some(&mut isas.huge),
        Size::Giant => Some(&mut isas.giant),
    };
    let sized: Option<&dyn cranelift_codegen::isa::TargetIsa> = match slot {
        None => None,
        Some(Some(isa)) => Some(&**isa),
        Some(slot) => Some(&**slot.insert(host_isa(opts, size)?)),
    };
    // A giant function (compiled without the optimizer, typically a
    // program's run-once top level) is placed by its entry: its loop
    // analysis would cost time its loops do not pay back.
    if placed && size != Size::Giant {
        place::mark_hot_loops(ctx);
    }
    let isa = sized.unwrap_or_else(|| module.isa());
    let mut ctrl = cranelift_codegen::control::ControlPlane::default();
    let alignment = ctx
        .compile(isa, &mut ctrl)
        .map_err(|e| err(&e.inner))?
        .buffer
        .alignment as u64;
    let align = alignment
        .max(isa.function_alignment().minimum as u64)
        .max(isa.symbol_alignment());
    let code = ctx.compiled_code().expect("compiled just now");
    let relocs: Vec<cranelift_module::ModuleReloc> = (code.buffer.relocs().iter())
        .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &ctx.func, id))
        .collect();
    let hots = if placed {
        place::hot_offsets(code)
    } else {
        Vec::new()
    };
    let align = if placed {
        let size = place::memory_size(code);
        place::place(
            (module, reservation),
            &ctx.func.signature,
            &hots,
            (align, size),
        )
        .map_err(|e| err(&e))?
    } else {
        align
    };
    module
        .define_function_bytes(id, align, code.code_buffer(), &relocs)
        .map_err(|e| err(&e))?;
    Ok(hots.first().copied().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_follow_the_thresholds() {
        let opts = JitOptions {
            huge_function_insts: 10,
            giant_function_insts: 100,
            ..JitOptions::default()
        };
        assert_eq!(Size::of(10, false, &opts), Size::Normal);
        assert_eq!(Size::of(10, true, &opts), Size::Huge);
        assert_eq!(Size::of(11, false, &opts), Size::Huge);
        assert_eq!(Size::of(100, false, &opts), Size::Huge);
        assert_eq!(Size::of(101, false, &opts), Size::Giant);
        // A giant threshold below the huge one is the huge one.
        let low = JitOptions {
            giant_function_insts: 0,
            ..opts
        };
        assert_eq!(Size::of(10, false, &low), Size::Normal);
        assert_eq!(Size::of(11, false, &low), Size::Giant);
    }

    #[test]
    fn giant_functions_get_no_optimizer_and_the_single_pass_allocator() {
        let isa = host_isa(&JitOptions::default(), Size::Giant).unwrap();
        assert_eq!(isa.flags().opt_level(), settings::OptLevel::None);
        assert_eq!(
            isa.flags().regalloc_algorithm(),
            settings::RegallocAlgorithm::SinglePass
        );
        let normal = host_isa(&JitOptions::default(), Size::Normal).unwrap();
        assert_eq!(normal.flags().opt_level(), settings::OptLevel::Speed);
    }
}
