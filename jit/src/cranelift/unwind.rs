//! Trap unwinding for the self calls of T2 code (in-process, x86-64): a
//! recursive function's direct calls of itself are not followed by a test
//! of the trap record.
//!
//! The usual protocol (see [`crate::abi`]) has every compiled frame return
//! normally after a trap and every caller test `VmCtx::trap_code` after
//! every call. For the self calls of a recursive T2 function this test is a
//! load and a branch on every call of the hottest code there is (`fib`,
//! `tak`). Here instead:
//! - The function's entry slot points to a *shell* (a few bytes, see
//!   [`shell_bytes`]) that enters the function's code, the *body*, through
//!   [`catch_entry`]: a frame that saves every callee-saved register and
//!   calls the body with the arguments untouched. The body's self calls
//!   are plain direct calls without a test.
//! - The body's shared trap exit (every trap path of the body ends there,
//!   after recording the trap and reporting its own frame as before) calls
//!   [`unwind_entry`] with the function's [`UnwindTable`]. It walks the
//!   frame-pointer chain from the trapping body frame: each return address
//!   that is one of the body's self-call sites is a suspended body frame,
//!   reported to the stack trace at that call (two frames for a call in an
//!   inlined copy, as its propagation block would have). The first return
//!   address that is not is the catch frame's (a body is entered only by
//!   its own self calls and through the catch frame): execution resumes
//!   there as if the outermost body frame had returned a zero result, and
//!   the catch frame restores the callee-saved registers it saved and
//!   returns to the slot's caller, which sees the usual "returned, trap
//!   recorded".
//!
//! The skipped body frames hold nothing to undo: the trap path never gives
//! recursion depth back, no collection runs in them afterwards, and the
//! host resets the context for the next entry.
//!
//! Only direct self calls skip the test: a call through an entry slot may
//! reach code of another tier that returns normally after a trap, so those
//! keep the test (as do helper calls, whose Rust frames are never skipped).
//! Functions with stack arguments (more than 5 integer or 8 float
//! parameters), whose arguments the catch frame could not pass on, and the
//! cross-compiled AArch64 images keep the test everywhere.

use cranelift_codegen::CompiledCode;
use waddle_opt::abi::VmCtx;
use waddle_opt::ir::{FuncId, Function, InstKind, SrcLoc, Type};

use super::translate::Sites;

/// What unwinding through one recursive function needs; boxed, its address
/// is a constant in the body's and the shell's code, filled in before any
/// code runs.
#[derive(Debug, Default)]
#[repr(C)]
pub(crate) struct UnwindTable {
    /// Address of the body's code (the shell reads it).
    pub body: usize,
    /// The function's index (reported with every frame).
    pub func: u32,
    /// The body's self-call sites, sorted by the offset (from `body`) of
    /// their return address: the call's location and, for a call in an
    /// inlined copy, the location of the call the copy stands for.
    pub sites: Vec<(u32, SrcLoc, Sites)>,
    /// With a tail loop (`translate::tail`): where a body frame keeps the
    /// counter its prologue left (bytes from its frame pointer), and the
    /// tail call's location, where each iteration's frame is reported.
    pub tail: Option<(i64, SrcLoc)>,
}

/// Where the walk resumes: the stack pointer, the frame pointer and the
/// code address (in the catch frame).
#[cfg(target_arch = "x86_64")]
#[repr(C)]
struct Resume {
    sp: usize,
    fp: usize,
    pc: usize,
}

/// Bytes of [`catch_entry`] up to its body call's return address (the
/// encodings of its instructions; checked by a test).
#[cfg(target_arch = "x86_64")]
const CATCH_RET_OFFSET: usize = 20;

/// Walks from the trapping body frame `fp` to the catch frame (see the
/// module docs), reporting every suspended body frame, and fills `out`.
///
/// # Safety
/// Called only by [`unwind_entry`] from a body's trap exit: `vmctx` is the
/// running context, `table` the body's table (filled), and `fp` the frame
/// pointer of a body frame entered, through zero or more self calls of the
/// body, from [`catch_entry`].
#[cfg(target_arch = "x86_64")]
unsafe extern "C" fn unwind_walk(
    vmctx: *mut VmCtx,
    table: *const UnwindTable,
    fp: usize,
    out: *mut Resume,
) {
    // SAFETY: the caller promises a filled table.
    let t = unsafe { &*table };
    let mut fp = fp;
    loop {
        // SAFETY: every frame on the chain is a Cranelift frame with the
        // standard record: the caller's frame pointer at `fp`, the return
        // address above it.
        let (caller_fp, ret) = unsafe { (*(fp as *const usize), *((fp + 8) as *const usize)) };
        let site = u32::try_from(ret.wrapping_sub(t.body))
            .ok()
            .and_then(|off| t.sites.binary_search_by_key(&off, |s| s.0).ok());
        let Some(i) = site else {
            if ret != catch_addr() + CATCH_RET_OFFSET {
                // Only the body's self calls and the catch frame build the
                // chain; anything else is a code generator bug, and
                // returning would run callers that do not test for the trap.
                eprintln!("waddle: internal error: unknown return address while unwinding a trap");
                std::process::abort();
            }
            // SAFETY: `out` is the entry's scratch record.
            unsafe {
                out.write(Resume {
                    sp: fp + 16,
                    fp: caller_fp,
                    pc: ret,
                });
            }
            return;
        };
        let (_, loc, inline_sites) = t.sites[i];
        for l in std::iter::once(loc).chain(inline_sites.iter()) {
            // SAFETY: `vmctx` is the live context of this entry.
            unsafe { crate::helpers::trap_frame(vmctx, t.func, l.file, l.line, l.col) };
        }
        if let Some((slot, l)) = t.tail {
            // The caller's tail-loop iterations: its prologue's counter
            // minus the callee's, which read the caller's current one.
            // SAFETY: `caller_fp` and `fp` are body frames' frame pointers
            // and `slot` the offset of their slot from them, which every
            // body's prologue writes before anything can trap.
            let (caller_d, callee_d) = unsafe {
                (
                    *(caller_fp.wrapping_add_signed(slot as isize) as *const i64),
                    *(fp.wrapping_add_signed(slot as isize) as *const i64),
                )
            };
            // A call in an inlined copy (`inline_sites`, one per copy)
            // passed the callee the copy's frame taken too.
            let k = caller_d - callee_d - 1 - inline_sites.iter().count() as i64;
            // SAFETY: `vmctx` is the live context of this entry.
            unsafe { crate::helpers::trap_frames(vmctx, t.func, l.file, l.line, l.col, k) };
        }
        fp = caller_fp;
    }
}

/// The helper a body's trap exit calls with the context and its table:
/// never returns to it (see the module docs). It passes its caller's frame
/// pointer to [`unwind_walk`], then resumes in the catch frame with a zero
/// result (`rax` and `xmm0`).
///
/// # Safety
/// Only a body's trap exit may call it (see [`unwind_walk`]).
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
pub(crate) unsafe extern "C" fn unwind_entry(vmctx: *mut VmCtx, table: *const UnwindTable) {
    // On entry rsp is 8 mod 16 (the return address); 40 bytes realign it
    // and leave the 24-byte resume record at rsp.
    core::arch::naked_asm!(
        "mov rdx, rbp",
        "sub rsp, 40",
        "mov rcx, rsp",
        "call {walk}",
        "mov r11, qword ptr [rsp + 16]",
        "mov rbp, qword ptr [rsp + 8]",
        "mov rsp, qword ptr [rsp]",
        "xor eax, eax",
        "xorps xmm0, xmm0",
        "jmp r11",
        walk = sym unwind_walk,
    )
}

/// The catch frame: saves the frame pointer and every callee-saved
/// register, calls the body whose address is in `r11` with the argument
/// registers untouched, restores them and returns the body's result. A
/// trap in the body resumes at the return address of that call
/// ([`CATCH_RET_OFFSET`]) with a zero result.
///
/// # Safety
/// Only a shell ([`shell_bytes`]) may jump here, with the arguments of the
/// body (all in registers) and the body's address in `r11`.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
unsafe extern "C" fn catch_entry() {
    // Entry rsp is 8 mod 16; rbp and five registers make it 0 mod 16
    // after 8 more bytes.
    core::arch::naked_asm!(
        "push rbp",
        "mov rbp, rsp",
        "push rbx",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        "sub rsp, 8",
        "call r11",
        "add rsp, 8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        "ret",
    )
}

/// Whether this build unwinds the self calls of in-process T2 code.
pub(crate) const SUPPORTED: bool = cfg!(target_arch = "x86_64");

/// The address of [`unwind_entry`] (0 where unwinding is not
/// [`SUPPORTED`]; no code calls it then).
pub(crate) fn entry_addr() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        unwind_entry as *const () as usize
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// The address of [`catch_entry`] (0 where unwinding is not
/// [`SUPPORTED`]).
fn catch_addr() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        catch_entry as *const () as usize
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

/// Whether `func` (function `me`) has a direct call of itself: only then
/// are its traps unwound (a function recursive through others only would
/// pay the shell's extra call for nothing).
pub(crate) fn calls_itself(func: &Function, me: FuncId) -> bool {
    func.layout()
        .iter()
        .flat_map(|&bl| func.blocks()[bl].insts.iter())
        .any(|&i| matches!(func.inst(i).kind, InstKind::Call(c, _) if c == me))
}

/// Whether `func`'s parameters all arrive in registers (with the context:
/// at most 6 integer and 8 float words under the System V convention), so
/// [`catch_entry`] can pass them on untouched.
pub(crate) fn register_args(func: &Function) -> bool {
    let floats = func
        .sig()
        .params
        .iter()
        .filter(|&&t| t == Type::Float)
        .count();
    let ints = func.sig().params.len() - floats + 1;
    ints <= 6 && floats <= 8
}

/// The machine code of a function's shell: `r11 = table.body; jmp
/// catch_entry` (the body's address is read from the table at run time,
/// since it is known only once the module is finalized).
pub(crate) fn shell_bytes(table: usize) -> Vec<u8> {
    let mut code = Vec::with_capacity(32);
    // movabs r11, table + offset of `body`
    code.extend_from_slice(&[0x49, 0xbb]);
    let body_field = table + std::mem::offset_of!(UnwindTable, body);
    code.extend_from_slice(&(body_field as u64).to_le_bytes());
    // mov r11, [r11]
    code.extend_from_slice(&[0x4d, 0x8b, 0x1b]);
    // movabs r10, catch_entry
    code.extend_from_slice(&[0x49, 0xba]);
    code.extend_from_slice(&(catch_addr() as u64).to_le_bytes());
    // jmp r10
    code.extend_from_slice(&[0x41, 0xff, 0xe2]);
    code
}

/// Where `slot` of a compiled body is, in bytes from its frame pointer.
pub(crate) fn slot_offset(code: &CompiledCode, slot: cranelift_codegen::ir::StackSlot) -> i64 {
    let layout = code
        .buffer
        .frame_layout()
        .expect("Cranelift records the frame layout of every function");
    i64::from(layout.stackslots[slot].offset) - i64::from(layout.frame_to_fp_offset)
}

/// The self-call sites of a compiled body: the offset of each tagged call's
/// return address with the frames `tags` (from the translator) gives it,
/// sorted by offset.
pub(crate) fn body_sites(
    code: &CompiledCode,
    tags: &[(SrcLoc, Sites)],
) -> Vec<(u32, SrcLoc, Sites)> {
    let srclocs = code.buffer.get_srclocs_sorted();
    let mut sites: Vec<(u32, SrcLoc, Sites)> = code
        .buffer
        .call_sites()
        .filter_map(|site| {
            let ret = site.ret_addr;
            // The call instruction ends at its return address; the range of
            // its source location may go on (result moves).
            let range = srclocs.iter().find(|r| r.start < ret && ret <= r.end)?;
            if range.loc.is_default() {
                return None;
            }
            let &(loc, inline_sites) = tags.get(range.loc.bits() as usize)?;
            Some((ret, loc, inline_sites))
        })
        .collect();
    sites.sort_by_key(|s| s.0);
    sites
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The walk recognises the catch frame by its return address: the call
    /// of the body (`call r11`) must end exactly at [`CATCH_RET_OFFSET`].
    #[test]
    fn the_catch_frame_returns_at_the_recorded_offset() {
        // SAFETY: code bytes of a function of this binary, mapped readable.
        let code =
            unsafe { std::slice::from_raw_parts(catch_addr() as *const u8, CATCH_RET_OFFSET + 4) };
        assert_eq!(
            &code[CATCH_RET_OFFSET - 3..CATCH_RET_OFFSET],
            &[0x41, 0xff, 0xd3]
        );
        // `add rsp, 8` follows.
        assert_eq!(code[CATCH_RET_OFFSET], 0x48);
    }

    /// The shell loads the body's address from the table and jumps to the
    /// catch frame.
    #[test]
    fn the_shell_enters_the_catch_frame_with_the_body() {
        let table = 0x1000_0000usize;
        let code = shell_bytes(table);
        assert_eq!(&code[..2], &[0x49, 0xbb]);
        let field = u64::from_le_bytes(code[2..10].try_into().unwrap());
        assert_eq!(
            field as usize,
            table + std::mem::offset_of!(UnwindTable, body)
        );
        let target = u64::from_le_bytes(code[15..23].try_into().unwrap());
        assert_eq!(target as usize, catch_addr());
        assert_eq!(&code[23..], &[0x41, 0xff, 0xe2]);
    }

    /// Functions with stack arguments keep the trap tests.
    #[test]
    fn only_register_arguments_unwind() {
        use waddle_opt::ir::Signature;
        let f = |params: Vec<Type>| {
            Function::new(
                "f",
                Signature {
                    params,
                    ret: Type::Int,
                },
            )
        };
        assert!(register_args(&f(vec![Type::Int; 5])));
        assert!(!register_args(&f(vec![Type::Int; 6])));
        assert!(register_args(&f(vec![Type::Float; 8])));
        assert!(!register_args(&f(vec![Type::Float; 9])));
    }
}
