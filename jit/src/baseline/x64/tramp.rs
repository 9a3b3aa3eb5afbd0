//! x86-64 entry trampolines: `extern "C" fn(vmctx, args: *const Word, ret:
//! *mut Word)` that load the arguments from the word array into their
//! System V locations, call the function through its entry slot and store
//! the result as a word (see [`crate::abi`]).

use dynasmrt::{dynasm, DynasmApi};
use waddle_opt::abi::VMCTX_ENTRIES_OFFSET;
use waddle_opt::ir::{Signature, Type};

use super::{arg_locs, ArgLoc, Asm};

/// Emits the trampoline of the function with signature `sig` whose entry
/// slot is number `index`.
pub(crate) fn emit(ops: &mut Asm, sig: &Signature, index: usize) {
    // rbx = vmctx, r12 = args, r13 = ret; after the four pushes rsp is
    // 16-byte aligned.
    dynasm!(ops ; .arch x64
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
    let (locs, nstack) = arg_locs(&sig.params);
    let area = (8 * (nstack + nstack % 2)) as i32;
    if area > 0 {
        dynasm!(ops ; .arch x64 ; sub rsp, area);
    }
    for (k, &l) in locs.iter().enumerate() {
        let src = 8 * k as i32;
        match l {
            ArgLoc::Int(r) => dynasm!(ops ; .arch x64 ; mov Rq(r), QWORD [r12 + src]),
            ArgLoc::Float(x) => dynasm!(ops ; .arch x64 ; movsd Rx(x), QWORD [r12 + src]),
            ArgLoc::Stack(s) => {
                let dst = 8 * s as i32;
                dynasm!(ops ; .arch x64
                    ; mov rax, QWORD [r12 + src]
                    ; mov QWORD [rsp + dst], rax
                );
            }
        }
    }
    let off = 8 * index as i32;
    dynasm!(ops ; .arch x64
        ; mov rdi, rbx
        ; mov rax, QWORD [rbx + VMCTX_ENTRIES_OFFSET]
        ; call QWORD [rax + off]
    );
    match sig.ret {
        Type::Unit => {}
        Type::Float => dynasm!(ops ; .arch x64 ; movsd QWORD [r13], xmm0),
        Type::Bool => dynasm!(ops ; .arch x64 ; movzx eax, al ; mov QWORD [r13], rax),
        _ => dynasm!(ops ; .arch x64 ; mov QWORD [r13], rax),
    }
    dynasm!(ops ; .arch x64
        ; lea rsp, [rbp - 24]
        ; pop r13
        ; pop r12
        ; pop rbx
        ; pop rbp
        ; ret
    );
}
