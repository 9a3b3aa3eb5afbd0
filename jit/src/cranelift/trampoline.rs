//! Entry trampolines: `extern "C" fn(vmctx, args: *const Word, ret: *mut
//! Word)`, one per function, so Rust can call any compiled function with a
//! slice of words (see [`crate::abi`]).

use cranelift_codegen::ir::{self, types, AbiParam, InstBuilder};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::FunctionBuilder;
use waddle_opt::abi::VMCTX_ENTRIES_OFFSET;
use waddle_opt::ir::{Signature, Type};

use super::translate::{flags, native_signature, word_offset};
use crate::abi::native_type;

/// The native signature of every trampoline.
pub(crate) fn trampoline_signature(call_conv: CallConv) -> ir::Signature {
    let mut sig = ir::Signature::new(call_conv);
    sig.params.extend([
        AbiParam::new(types::I64),
        AbiParam::new(types::I64),
        AbiParam::new(types::I64),
    ]);
    sig
}

/// Builds the trampoline of the function with signature `sig` whose entry
/// slot is number `index` into `b`'s function.
pub(crate) fn build(
    mut b: FunctionBuilder<'_>,
    sig: &Signature,
    index: usize,
    call_conv: CallConv,
    frontend: TargetFrontendConfig,
) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (vmctx, args, ret) = (p[0], p[1], p[2]);
    let mut cargs = vec![vmctx];
    for (k, &t) in sig.params.iter().enumerate() {
        let off = word_offset(k).unwrap_or(i32::MAX);
        let v = match t {
            Type::Float => b.ins().load(types::F64, flags(), args, off),
            Type::Bool => {
                let w = b.ins().load(types::I64, flags(), args, off);
                b.ins().ireduce(types::I8, w)
            }
            _ => b.ins().load(types::I64, flags(), args, off),
        };
        cargs.push(v);
    }
    let callee_sig = b.import_signature(native_signature(&sig.params, sig.ret, call_conv));
    let entries = b
        .ins()
        .load(types::I64, flags(), vmctx, VMCTX_ENTRIES_OFFSET);
    let code = b.ins().load(
        types::I64,
        flags(),
        entries,
        word_offset(index).unwrap_or(i32::MAX),
    );
    let call = b.ins().call_indirect(callee_sig, code, &cargs);
    if let Some(&r) = b.inst_results(call).first() {
        let w = match native_type(sig.ret) {
            Some(types::I8) => b.ins().uextend(types::I64, r),
            _ => r,
        };
        b.ins().store(flags(), w, ret, 0);
    }
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(frontend);
}
