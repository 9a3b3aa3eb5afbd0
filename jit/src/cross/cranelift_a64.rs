//! Tier T2 for AArch64: the Cranelift translator of [`crate::cranelift`]
//! in its position-independent mode ([`Addressing::Tables`]: helpers and
//! string constants through `VmCtx::helpers` / `VmCtx::strings`, Waddle
//! calls through `VmCtx::entries` as always), compiled function by function
//! with `Context::compile` for Cranelift's `aarch64` ISA and collected into a
//! [`CodeImage`].
//!
//! No module (JIT or object) is needed: the code has no relocations, which
//! [`compile_aarch64`] checks for every function. Constants Cranelift needs
//! (float literals, jump tables) live in the function's own code, reached
//! PC-relative. [`compile_functions`] is the same compilation for either
//! architecture, returning each function's code (for filetests and
//! inspection: the code holds no host address, so it prints the same on
//! every run). Stack limit: the translator's prologue compares the stack
//! pointer after the frame is allocated with `VmCtx::stack_limit`; frames
//! larger than a page are probed inline (`probestack_strategy=inline`, a
//! loop of stores on AArch64), so the protocol of [`crate::abi`] holds as on
//! x86-64.

use std::fmt;

use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{Function as ClifFunction, UserFuncName};
use cranelift_codegen::isa::{self, OwnedTargetIsa};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_entity::EntityRef;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use waddle_opt::ir::{verify_program, FuncId, Program};

use super::image::{Arch, CodeImage, ImageBuilder};
use crate::cranelift::translate::{native_signature, Addressing, Env, Translator};
use crate::disasm::Arch as Isa;
use crate::options::{CompileError, JitOptions};
use crate::tables::collect_strings;

/// The Cranelift ISA for `arch` Linux with Waddle's settings.
fn target_isa(opts: &JitOptions, arch: Isa) -> Result<OwnedTargetIsa, CompileError> {
    let isa_err = |e: &dyn fmt::Display| CompileError::Isa(e.to_string());
    let mut fb = settings::builder();
    let opt = if opts.optimize { "speed" } else { "none" };
    let verify = if opts.verify_cranelift {
        "true"
    } else {
        "false"
    };
    for (k, v) in [
        ("opt_level", opt),
        ("enable_verifier", verify),
        ("use_colocated_libcalls", "false"),
        ("is_pic", "true"),
        ("enable_probestack", "true"),
        ("probestack_strategy", "inline"),
        ("unwind_info", "false"),
    ] {
        fb.set(k, v).map_err(|e| isa_err(&e))?;
    }
    let triple = match arch {
        Isa::Aarch64 => "aarch64-unknown-linux-gnu",
        Isa::X86_64 => "x86_64-unknown-linux-gnu",
    };
    let builder = isa::lookup_by_name(triple).map_err(|e| isa_err(&e))?;
    builder
        .finish(settings::Flags::new(fb))
        .map_err(|e| isa_err(&e))
}

/// The machine code of one function, from [`compile_functions`].
#[derive(Clone, Debug)]
pub struct FuncCode {
    /// The function.
    pub func: FuncId,
    /// Its machine code (the native entry is at offset 0).
    pub code: Vec<u8>,
    /// The alignment the code needs, in bytes.
    pub align: u64,
}

/// Compiles every function with a body of `program` for `arch` with the
/// opt tier's Cranelift translator in its position-independent mode (no
/// relocations; helpers, strings and calls through the `VmCtx` tables).
/// `opts.disasm` is ignored.
pub fn compile_functions(
    program: &Program,
    opts: &JitOptions,
    arch: Isa,
) -> Result<Vec<FuncCode>, CompileError> {
    verify_program(program).map_err(CompileError::Verify)?;
    super::image::check_host_calls(program)?;
    let isa = target_isa(opts, arch)?;
    let call_conv = isa.default_call_conv();
    let (_, string_index) = collect_strings(program, opts.string_table.as_deref());
    let env = Env {
        program,
        call_conv,
        string_table: 0,
        string_index: &string_index,
        fuel: opts.fuel,
        recursive: waddle_opt::analysis::callgraph::recursive_functions(program),
        frontend: isa.frontend_config(),
        addressing: Addressing::Tables,
        strings_from_ctx: true,
        // Images are position independent: no counters at fixed addresses.
        counters: None,
        pinned_ctx: false,
    };
    let codegen_err = |func: &str, message: String| CompileError::Codegen {
        func: func.to_string(),
        message,
    };
    let min_align = u64::from(isa.function_alignment().minimum);
    let mut ctx = Context::new();
    let mut fctx = FunctionBuilderContext::new();
    let mut out = Vec::new();
    for (fid, f) in program.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        ctx.clear();
        ctx.func = ClifFunction::with_name_signature(
            UserFuncName::user(0, fid.index() as u32),
            native_signature(&f.sig().params, f.sig().ret, call_conv),
        );
        Translator::run(
            &env,
            fid,
            f,
            env.recursive[fid],
            // Position-independent images have no relocations: self calls
            // go through the entry slot too.
            None,
            None,
            // Nor are giant functions segmented: a segment call is a
            // relocation too.
            &[],
            FunctionBuilder::new(&mut ctx.func, &mut fctx),
        );
        let code = ctx
            .compile(&*isa, &mut ControlPlane::default())
            .map_err(|e| codegen_err(f.name(), format!("{:?}", e.inner)))?;
        if let Some(r) = code.buffer.relocs().first() {
            return Err(codegen_err(
                f.name(),
                format!("unexpected relocation in position-independent code: {r:?}"),
            ));
        }
        out.push(FuncCode {
            func: fid,
            code: code.code_buffer().to_vec(),
            align: u64::from(code.buffer.alignment).max(min_align),
        });
    }
    Ok(out)
}

/// Compiles every function of `program` for AArch64 into a code image
/// (Cranelift's AArch64 back end). `opts.disasm` is ignored.
pub fn compile_aarch64(program: &Program, opts: &JitOptions) -> Result<CodeImage, CompileError> {
    let funcs = compile_functions(program, opts, Isa::Aarch64)?;
    let (texts, _) = collect_strings(program, opts.string_table.as_deref());
    let image_err = |e: super::image::ImageError| CompileError::Codegen {
        func: "<image>".to_string(),
        message: e.to_string(),
    };
    let mut image = ImageBuilder::new(Arch::Aarch64, program, texts, opts.fuel);
    for f in funcs {
        image
            .add_function(f.func, &f.code, 0, f.align.max(16))
            .map_err(image_err)?;
    }
    image.finish().map_err(image_err)
}
