//! Interpreter-entry stubs: native functions with a Waddle function's
//! native signature that run it on the interpreter (T0), so compiled code
//! of any tier can call a function that is still interpreted through its
//! entry slot (see [`crate::abi`], "Mixed tiers").
//!
//! A stub stores its arguments as words in a stack slot of its frame and
//! calls the `CallFunc` runtime helper with the function's id; the helper
//! checks the stack limit, passes the native stack above it as GC roots,
//! and asks the host to run the function ([`waddle_opt::interp::Host::call_func`]).
//! A trap comes back in the context's trap record like any helper's, and
//! the caller checks it after the call as after every Waddle call. Stubs
//! depend only on the function's id and signature, never on its body.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind};
use cranelift_codegen::ir::{AbiParam, UserFuncName};
use cranelift_entity::EntityRef;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use waddle_opt::ir::{FuncId, Program, Signature, Type};

use super::translate::{flags, native_signature, word_offset};
use crate::helpers::Helper;
use crate::options::{CompileError, JitOptions};

/// Interpreter-entry stubs for some functions of a program, in executable
/// memory owned by this value (freed when it is dropped).
pub struct InterpStubs {
    module: Option<JITModule>,
    /// `(function, stub address)`.
    stubs: Vec<(FuncId, usize)>,
    /// Bytes of machine code.
    bytes: usize,
}

impl InterpStubs {
    /// The stub of `func`, if this set has one.
    pub fn get(&self, func: FuncId) -> Option<*const u8> {
        (self.stubs.iter())
            .find(|&&(f, _)| f == func)
            .map(|&(_, a)| a as *const u8)
    }

    /// Bytes of machine code the stubs take.
    pub fn code_bytes(&self) -> usize {
        self.bytes
    }
}

// SAFETY: the module is finalized before the value is built and only
// freed in `Drop`; `&self` reaches only immutable data (addresses).
unsafe impl Sync for InterpStubs {}

impl Drop for InterpStubs {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the owner keeps the stubs alive while any entry slot
            // may point at them (see the runtime's tiering controller).
            unsafe { m.free_memory() };
        }
    }
}

/// Compiles an interpreter-entry stub for each of `funcs` (ids of
/// `program`, whose signatures they take).
pub fn compile_stubs(program: &Program, funcs: &[FuncId]) -> Result<InterpStubs, CompileError> {
    let opts = JitOptions {
        optimize: false,
        ..JitOptions::default()
    };
    let isa = super::host_isa(&opts, super::Size::Normal)?;
    let call_conv = isa.default_call_conv();
    let frontend = isa.frontend_config();
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let err = |func: &str, e: &dyn std::fmt::Debug| CompileError::Codegen {
        func: func.to_string(),
        message: format!("{e:?}"),
    };
    let mut ids = Vec::new();
    let mut bytes = 0;
    for &fid in funcs {
        let Some(f) = program.funcs.get(fid) else {
            continue;
        };
        let sig = native_signature(&f.sig().params, f.sig().ret, call_conv);
        let id = module
            .declare_function(&format!("wdl_s{}", fid.index()), Linkage::Local, &sig)
            .map_err(|e| err(f.name(), &e))?;
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(2, fid.index() as u32);
        build(
            FunctionBuilder::new(&mut ctx.func, &mut fctx),
            f.sig(),
            fid,
            call_conv,
            frontend,
        );
        module
            .define_function(id, &mut ctx)
            .map_err(|e| err(f.name(), &e))?;
        bytes += ctx.compiled_code().map_or(0, |c| c.code_buffer().len());
        module.clear_context(&mut ctx);
        ids.push((fid, id));
    }
    module
        .finalize_definitions()
        .map_err(|e| err("<stubs>", &e))?;
    let stubs = ids
        .into_iter()
        .map(|(f, id)| (f, module.get_finalized_function(id) as usize))
        .collect();
    Ok(InterpStubs {
        module: Some(module),
        stubs,
        bytes,
    })
}

/// The stub of function `func` with signature `sig`.
fn build(
    mut b: FunctionBuilder<'_>,
    sig: &Signature,
    func: FuncId,
    call_conv: cranelift_codegen::isa::CallConv,
    frontend: cranelift_codegen::isa::TargetFrontendConfig,
) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let vmctx = p[0];
    let n = sig.params.len();
    let size = u32::try_from(n.max(1) * 8).unwrap_or(u32::MAX);
    let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, size, 3));
    let base = b.ins().stack_addr(types::I64, slot, 0);
    for (k, &v) in p[1..].iter().enumerate() {
        let w = match sig.params[k] {
            Type::Float => b.ins().bitcast(types::I64, MemFlagsData::new(), v),
            Type::Bool => b.ins().uextend(types::I64, v),
            _ => v,
        };
        b.ins()
            .store(flags(), w, base, word_offset(k).unwrap_or(i32::MAX));
    }
    let helper = Helper::CallFunc;
    let hsig = helper.sig();
    let mut csig = cranelift_codegen::ir::Signature::new(call_conv);
    csig.params
        .extend(hsig.params.iter().map(|&t| AbiParam::new(t)));
    csig.returns.extend(hsig.ret.map(AbiParam::new));
    let csig = b.import_signature(csig);
    let addr = b.ins().iconst(types::I64, helper.addr() as i64);
    let id = b.ins().iconst(types::I32, func.index() as i64);
    let count = b.ins().iconst(types::I64, n as i64);
    let call = b.ins().call_indirect(csig, addr, &[vmctx, id, base, count]);
    let w = b.inst_results(call)[0];
    match sig.ret {
        Type::Unit => {
            b.ins().return_(&[]);
        }
        Type::Float => {
            let r = b.ins().bitcast(types::F64, MemFlagsData::new(), w);
            b.ins().return_(&[r]);
        }
        Type::Bool => {
            let r = b.ins().ireduce(types::I8, w);
            b.ins().return_(&[r]);
        }
        _ => {
            b.ins().return_(&[w]);
        }
    }
    b.seal_all_blocks();
    b.finalize(frontend);
}
