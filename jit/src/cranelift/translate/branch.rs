//! Two-way branches, ordered so that Cranelift keeps loop-invariant code
//! where the Waddle passes hoisted it.
//!
//! Cranelift's optimizer (0.135) takes every pure instruction out of the
//! layout and places it again at its first use, hoisting it out of the
//! loops it does not depend on (`egraph::elaborate`). It walks the
//! dominator tree in preorder and keeps a stack of the loops it is in; a
//! block outside the innermost loop pops that loop, and nothing pushes it
//! back when the walk returns to another child of the loop's header. The
//! header's children come in reverse postorder, and its depth-first walk
//! follows a branch's first target first, so a loop test written
//! `brif in_loop, body, exit` has the exit elaborated before the body:
//! inside the body the loop is gone from the stack, and everything the
//! body uses that the Waddle LICM had hoisted into a preheader (the
//! row factor of a nested loop, a conversion of a parameter) is placed
//! back into the innermost loop's preheader, that is, into the body of
//! every loop around it. mandelbrot's pixel loop recomputed `float(n)`
//! and a division for its row on every pixel.
//!
//! The translation therefore writes every two-way branch with the target
//! that is nested deeper in loops second: the walk then elaborates that
//! target's subtree first, with the whole loop stack. The condition is
//! complemented instead (a compare with the complementary condition code,
//! which the instruction selector fuses into the branch as before).

use cranelift_codegen::ir::condcodes::CondCode;
use cranelift_codegen::ir::{self, condcodes::IntCC, InstBuilder, InstructionData, Opcode};
use waddle_opt::analysis::{loops::LoopForest, ControlFlowGraph, DomTree};
use waddle_opt::ir::Function;

/// The loop forest of `func`, for [`LoopForest::nesting`] of a branch's
/// targets.
pub(super) fn loops(func: &Function) -> LoopForest {
    let cfg = ControlFlowGraph::compute(func);
    let dom = DomTree::compute(func, &cfg);
    LoopForest::compute(func, &cfg, &dom)
}

/// The negation of the branch condition `c`: the complementary compare
/// when `c` is a compare's result, else `c == 0`.
pub(super) fn negated(b: &mut cranelift_frontend::FunctionBuilder, c: ir::Value) -> ir::Value {
    if let ir::ValueDef::Result(inst, 0) = b.func.dfg.value_def(c) {
        match b.func.dfg.insts[inst] {
            InstructionData::IntCompare {
                opcode: Opcode::Icmp,
                cond,
                args,
            } => return b.ins().icmp(cond.complement(), args[0], args[1]),
            InstructionData::FloatCompare {
                opcode: Opcode::Fcmp,
                cond,
                args,
            } => return b.ins().fcmp(cond.complement(), args[0], args[1]),
            _ => {}
        }
    }
    b.ins().icmp_imm_u(IntCC::Equal, c, 0)
}
