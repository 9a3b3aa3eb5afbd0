//! AArch64 entry trampolines: `fn(vmctx: x0, args: *const Word = x1,
//! ret: *mut Word = x2)` that load the arguments from the word array into
//! their AAPCS64 locations, call the function through its entry slot
//! (`VmCtx::entries[index]`) and store the result as a word. The sequence
//! is [`crate::baseline::driver`]'s (at most `MAX_PARAMS` parameters, as
//! the image compiler checks); these are its encodings.

use dynasmrt::{dynasm, DynasmApi};
use waddle_opt::abi::VMCTX_ENTRIES_OFFSET;

use super::{mov_imm, Asm};
use crate::baseline::conv::{ArgLoc, RetClass};
use crate::baseline::driver::Trampolines;

impl Trampolines for Asm {
    /// Saves `x19` (vmctx), `x20` (args), `x21` (ret) and reserves
    /// `stack_words` words of outgoing arguments.
    fn enter(&mut self, stack_words: usize) {
        let area = (8 * stack_words).next_multiple_of(16) as u32;
        dynasm!(self ; .arch aarch64
            ; stp x29, x30, [sp, #-48]!
            ; mov x29, sp
            ; stp x19, x20, [sp, #16]
            ; str x21, [sp, #32]
            ; mov x19, x0
            ; mov x20, x1
            ; mov x21, x2
        );
        if area > 0 {
            mov_imm(self, 16, i64::from(area));
            dynasm!(self ; .arch aarch64 ; mov x17, sp ; sub x17, x17, x16 ; mov sp, x17);
        }
    }

    fn arg(&mut self, k: usize, loc: ArgLoc) {
        let src = (8 * k) as u32;
        match loc {
            ArgLoc::Int(r) => dynasm!(self ; .arch aarch64 ; ldr X(r), [x20, #src]),
            ArgLoc::Float(d) => dynasm!(self ; .arch aarch64 ; ldr D(d), [x20, #src]),
            ArgLoc::Stack(s) => {
                let dst = (8 * s) as u32;
                dynasm!(self ; .arch aarch64
                    ; ldr x8, [x20, #src]
                    ; str x8, [sp, #dst]
                );
            }
        }
    }

    fn call(&mut self, index: usize) {
        let entries = VMCTX_ENTRIES_OFFSET as u32;
        dynasm!(self ; .arch aarch64
            ; mov x0, x19
            ; ldr x16, [x19, #entries]
        );
        // The slot offset is an immediate only up to 4095 functions.
        mov_imm(self, 17, 8 * index as i64);
        dynasm!(self ; .arch aarch64
            ; ldr x16, [x16, x17]
            ; blr x16
        );
    }

    /// The result word through `x21`.
    fn result(&mut self, class: RetClass) {
        match class {
            RetClass::Float => dynasm!(self ; .arch aarch64 ; str d0, [x21]),
            RetClass::Byte => dynasm!(self ; .arch aarch64 ; and x0, x0, #0xff ; str x0, [x21]),
            RetClass::Word => dynasm!(self ; .arch aarch64 ; str x0, [x21]),
        }
    }

    fn leave(&mut self) {
        dynasm!(self ; .arch aarch64
            ; mov sp, x29
            ; ldp x19, x20, [sp, #16]
            ; ldr x21, [sp, #32]
            ; ldp x29, x30, [sp], #48
            ; ret
        );
    }
}
