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
//! PC-relative. Stack limit: the translator's prologue compares the stack
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
use waddle_opt::ir::{verify_program, Program};

use super::image::{Arch, CodeImage, ImageBuilder};
use crate::cranelift::translate::{native_signature, Addressing, Env, Translator};
use crate::options::{CompileError, JitOptions};
use crate::tables::collect_strings;

/// The Cranelift ISA for AArch64 Linux with Waddle's settings.
fn aarch64_isa(opts: &JitOptions) -> Result<OwnedTargetIsa, CompileError> {
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
    let builder = isa::lookup_by_name("aarch64-unknown-linux-gnu").map_err(|e| isa_err(&e))?;
    builder
        .finish(settings::Flags::new(fb))
        .map_err(|e| isa_err(&e))
}

/// Compiles every function of `program` for AArch64 into a code image
/// (Cranelift's AArch64 back end). `opts.disasm` is ignored.
pub fn compile_aarch64(program: &Program, opts: &JitOptions) -> Result<CodeImage, CompileError> {
    verify_program(program).map_err(CompileError::Verify)?;
    super::image::reject_host_calls(program)?;
    let isa = aarch64_isa(opts)?;
    let call_conv = isa.default_call_conv();
    let (texts, string_index) = collect_strings(program, opts.string_table.as_deref());
    let env = Env {
        program,
        call_conv,
        string_table: 0,
        string_index: &string_index,
        fuel: opts.fuel,
        frontend: isa.frontend_config(),
        addressing: Addressing::Tables,
        strings_from_ctx: true,
    };
    let codegen_err = |func: &str, message: String| CompileError::Codegen {
        func: func.to_string(),
        message,
    };
    let image_err = |e: super::image::ImageError| CompileError::Codegen {
        func: "<image>".to_string(),
        message: e.to_string(),
    };
    let mut image = ImageBuilder::new(Arch::Aarch64, program, texts, opts.fuel);
    let min_align = u64::from(isa.function_alignment().minimum).max(16);
    let mut ctx = Context::new();
    let mut fctx = FunctionBuilderContext::new();
    for (fid, f) in program.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        ctx.clear();
        ctx.func = ClifFunction::with_name_signature(
            UserFuncName::user(0, fid.index() as u32),
            native_signature(&f.sig.params, f.sig.ret, call_conv),
        );
        Translator::run(&env, f, FunctionBuilder::new(&mut ctx.func, &mut fctx));
        let code = ctx
            .compile(&*isa, &mut ControlPlane::default())
            .map_err(|e| codegen_err(&f.name, format!("{:?}", e.inner)))?;
        if let Some(r) = code.buffer.relocs().first() {
            return Err(codegen_err(
                &f.name,
                format!("unexpected relocation in position-independent code: {r:?}"),
            ));
        }
        let align = u64::from(code.buffer.alignment).max(min_align);
        image
            .add_function(fid, code.code_buffer(), 0, align)
            .map_err(image_err)?;
    }
    image.finish().map_err(image_err)
}
