//! AArch64 entry trampolines: `fn(vmctx: x0, args: *const Word = x1,
//! ret: *mut Word = x2)` that load the arguments from the word array into
//! their AAPCS64 locations, call the function through its entry slot
//! (`VmCtx::entries[index]`) and store the result as a word.

use dynasmrt::{dynasm, DynasmApi};
use waddle_opt::abi::VMCTX_ENTRIES_OFFSET;
use waddle_opt::ir::{Signature, Type};

use super::{arg_locs, ArgLoc, Asm};

/// Emits the trampoline of the function with signature `sig` whose entry
/// slot is number `index` (at most `MAX_PARAMS` parameters, as checked by
/// the caller).
pub(crate) fn emit(ops: &mut Asm, sig: &Signature, index: usize) {
    let (locs, nstack) = arg_locs(&sig.params);
    let area = (8 * nstack).next_multiple_of(16) as u32;
    dynasm!(ops ; .arch aarch64
        ; stp x29, x30, [sp, #-48]!
        ; mov x29, sp
        ; stp x19, x20, [sp, #16]
        ; str x21, [sp, #32]
        ; mov x19, x0
        ; mov x20, x1
        ; mov x21, x2
    );
    if area > 0 {
        super::mov_imm(ops, 16, i64::from(area));
        dynasm!(ops ; .arch aarch64 ; mov x17, sp ; sub x17, x17, x16 ; mov sp, x17);
    }
    for (k, &l) in locs.iter().enumerate() {
        let src = (8 * k) as u32;
        match l {
            ArgLoc::Int(r) => dynasm!(ops ; .arch aarch64 ; ldr X(r), [x20, #src]),
            ArgLoc::Float(d) => dynasm!(ops ; .arch aarch64 ; ldr D(d), [x20, #src]),
            ArgLoc::Stack(s) => {
                let dst = (8 * s) as u32;
                dynasm!(ops ; .arch aarch64
                    ; ldr x8, [x20, #src]
                    ; str x8, [sp, #dst]
                );
            }
        }
    }
    let entries = VMCTX_ENTRIES_OFFSET as u32;
    dynasm!(ops ; .arch aarch64
        ; mov x0, x19
        ; ldr x16, [x19, #entries]
    );
    // The slot offset is an immediate only up to 4095 functions.
    super::mov_imm(ops, 17, 8 * index as i64);
    dynasm!(ops ; .arch aarch64
        ; ldr x16, [x16, x17]
        ; blr x16
    );
    match sig.ret {
        Type::Unit => {}
        Type::Float => dynasm!(ops ; .arch aarch64 ; str d0, [x21]),
        Type::Bool => dynasm!(ops ; .arch aarch64 ; and x0, x0, #0xff ; str x0, [x21]),
        _ => dynasm!(ops ; .arch aarch64 ; str x0, [x21]),
    }
    dynasm!(ops ; .arch aarch64
        ; mov sp, x29
        ; ldp x19, x20, [sp, #16]
        ; ldr x21, [sp, #32]
        ; ldp x29, x30, [sp], #48
        ; ret
    );
}
