//! The parts of the native calling convention ([`crate::abi`]) every
//! baseline back end computes the same way, over its own register lists:
//! where each argument of a Waddle signature travels, and how a result
//! word is widened into a frame slot.

use cranelift_codegen::ir::types;
use waddle_opt::ir::Type;

use crate::helpers::Helper;

/// Where one native argument travels.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ArgLoc {
    /// An integer register (the back end's register number).
    Int(u8),
    /// A float register number.
    Float(u8),
    /// Stack word number `k` of the outgoing argument area.
    Stack(usize),
}

/// The locations of `params` given the integer argument registers left
/// after the `VmCtx` and the number of float argument registers: integer,
/// string, array and bool parameters take `int_regs` in order, floats the
/// float registers, the rest go to the stack in parameter order. Also
/// returns the number of stack words.
pub(crate) fn arg_locs(
    params: &[Type],
    int_regs: &[u8],
    float_regs: usize,
) -> (Vec<ArgLoc>, usize) {
    let (mut ni, mut nf, mut ns) = (0, 0, 0);
    let locs = params
        .iter()
        .map(|&t| {
            if t == Type::Float {
                if nf < float_regs {
                    nf += 1;
                    return ArgLoc::Float(nf as u8 - 1);
                }
            } else if ni < int_regs.len() {
                ni += 1;
                return ArgLoc::Int(int_regs[ni - 1]);
            }
            ns += 1;
            ArgLoc::Stack(ns - 1)
        })
        .collect();
    (locs, ns)
}

/// How a call's native result becomes a slot word.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum RetClass {
    /// A full integer word (int, str, arrays).
    Word,
    /// A bool in the low byte, zero-extended.
    Byte,
    /// A double in the first float register.
    Float,
}

impl RetClass {
    /// The class of a Waddle function returning `ty` (not `unit`).
    pub fn of_type(ty: Type) -> RetClass {
        match ty {
            Type::Float => RetClass::Float,
            Type::Bool => RetClass::Byte,
            _ => RetClass::Word,
        }
    }

    /// The class of helper `h`'s result, `None` when it returns nothing.
    pub fn of_helper(h: Helper) -> Option<RetClass> {
        Some(match h.sig().ret? {
            types::F64 => RetClass::Float,
            types::I8 => RetClass::Byte,
            _ => RetClass::Word,
        })
    }
}

/// One argument of a runtime-helper call, in the helper's parameter order
/// (see [`Helper::sig`]).
#[derive(Copy, Clone, Debug)]
pub(crate) enum HelperArg {
    /// The `VmCtx` pointer.
    Ctx,
    /// A value of the function (a float goes to a float register).
    Val(waddle_opt::ir::Value),
    /// A constant (type codes, comparison codes, lengths).
    Imm(i64),
    /// The address of the frame's array-literal scratch area.
    Scratch,
    /// The address of slot 0 of the frame (value `v`'s slot is
    /// [`super::driver::Backend::SLOT_STRIDE`] `* v` bytes from it).
    SlotBase,
    /// The lowest address above this function's frame: the callers'
    /// frames start there.
    FrameEnd,
}

/// The register each helper argument goes to: the `n`-th integer-class
/// argument to `int_regs[n]`, the `n`-th float to float register `n`.
pub(crate) fn helper_arg_regs(h: Helper, args: &[HelperArg], int_regs: &[u8]) -> Vec<ArgLoc> {
    let (mut ni, mut nf) = (0, 0);
    h.sig()
        .params
        .iter()
        .zip(args)
        .map(|(&t, _)| {
            if t == types::F64 {
                nf += 1;
                ArgLoc::Float(nf as u8 - 1)
            } else {
                ni += 1;
                ArgLoc::Int(int_regs[ni - 1])
            }
        })
        .collect()
}
