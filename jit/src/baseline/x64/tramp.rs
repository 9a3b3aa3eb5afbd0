//! x86-64 entry trampolines: `extern "C" fn(vmctx, args: *const Word, ret:
//! *mut Word)` that load the arguments from the word array into their
//! System V locations, call the function through its entry slot and store
//! the result as a word (see [`crate::abi`]). The sequence is
//! [`crate::baseline::driver`]'s; these are its encodings.

use dynasmrt::{dynasm, DynasmApi};
use waddle_opt::abi::VMCTX_ENTRIES_OFFSET;

use super::Asm;
use crate::baseline::conv::{ArgLoc, RetClass};
use crate::baseline::driver::Trampolines;

impl Trampolines for Asm {
    /// Saves `rbx` (vmctx), `r12` (args), `r13` (ret) and reserves
    /// `stack_words` words of outgoing arguments, keeping `rsp` 16-aligned.
    fn enter(&mut self, stack_words: usize) {
        dynasm!(self ; .arch x64
            ; push rbp
            ; mov rbp, rsp
            ; push rbx
            ; push r12
            ; push r13
            ; sub rsp, 8
            ; mov rbx, rdi
            ; mov r12, rsi
            ; mov r13, rdx
        );
        let area = (8 * (stack_words + stack_words % 2)) as i32;
        if area > 0 {
            dynasm!(self ; .arch x64 ; sub rsp, area);
        }
    }

    fn arg(&mut self, k: usize, loc: ArgLoc) {
        let src = 8 * k as i32;
        match loc {
            ArgLoc::Int(r) => dynasm!(self ; .arch x64 ; mov Rq(r), QWORD [r12 + src]),
            ArgLoc::Float(x) => dynasm!(self ; .arch x64 ; movsd Rx(x), QWORD [r12 + src]),
            ArgLoc::Stack(s) => {
                let dst = 8 * s as i32;
                dynasm!(self ; .arch x64
                    ; mov rax, QWORD [r12 + src]
                    ; mov QWORD [rsp + dst], rax
                );
            }
        }
    }

    fn call(&mut self, index: usize) {
        let off = 8 * index as i32;
        dynasm!(self ; .arch x64
            ; mov rdi, rbx
            ; mov rax, QWORD [rbx + VMCTX_ENTRIES_OFFSET]
            ; call QWORD [rax + off]
        );
    }

    /// The result word through `r13`.
    fn result(&mut self, class: RetClass) {
        match class {
            RetClass::Float => dynasm!(self ; .arch x64 ; movsd QWORD [r13], xmm0),
            RetClass::Byte => dynasm!(self ; .arch x64 ; movzx eax, al ; mov QWORD [r13], rax),
            RetClass::Word => dynasm!(self ; .arch x64 ; mov QWORD [r13], rax),
        }
    }

    fn leave(&mut self) {
        dynasm!(self ; .arch x64
            ; lea rsp, [rbp - 24]
            ; pop r13
            ; pop r12
            ; pop rbx
            ; pop rbp
            ; ret
        );
    }
}
