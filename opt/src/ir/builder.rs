//! A cursor-free builder for appending blocks, parameters, instructions and
//! terminators to a [`Function`].

use super::entities::{Block, Inst, Value};
use super::function::{BlockData, Function, Signature, ValueData, ValueDef};
use super::instructions::{InstData, InstKind, SrcLoc, Terminator};
use super::types::Type;

/// Appends to a function under construction. Blocks are created with a
/// placeholder `return` terminator that callers replace with
/// [`FunctionBuilder::set_terminator`].
pub struct FunctionBuilder<'f> {
    /// The function being built.
    pub func: &'f mut Function,
}

impl<'f> FunctionBuilder<'f> {
    /// A builder appending to `func`.
    pub fn new(func: &'f mut Function) -> Self {
        FunctionBuilder { func }
    }

    /// Creates a new empty block and appends it to the layout. The first block
    /// created is the entry block.
    pub fn create_block(&mut self) -> Block {
        let b = self.func.blocks.push(BlockData {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Return(None),
        });
        self.func.layout.push(b);
        b
    }

    /// Appends a parameter of type `ty` to `block` and returns it.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let index = self.func.blocks[block].params.len() as u32;
        let v = self.func.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, index),
        });
        self.func.blocks[block].params.push(v);
        v
    }

    /// Appends an instruction to `block`. `result_ty` is the type of its
    /// result, `Type::Unit` for none. Returns the instruction and its result.
    pub fn append_inst(
        &mut self,
        block: Block,
        kind: InstKind,
        result_ty: Type,
        loc: SrcLoc,
    ) -> (Inst, Option<Value>) {
        let inst = self.func.insts.push(InstData {
            kind,
            result: None,
            loc,
        });
        let result = if result_ty == Type::Unit {
            None
        } else {
            Some(self.func.values.push(ValueData {
                ty: result_ty,
                def: ValueDef::Inst(inst),
            }))
        };
        self.func.insts[inst].result = result;
        self.func.blocks[block].insts.push(inst);
        (inst, result)
    }

    /// Appends an instruction that produces a value and returns the value.
    /// Panics if `result_ty` is `Unit`.
    pub fn ins(&mut self, block: Block, kind: InstKind, result_ty: Type, loc: SrcLoc) -> Value {
        assert_ne!(
            result_ty,
            Type::Unit,
            "ins() needs a value-producing instruction"
        );
        self.append_inst(block, kind, result_ty, loc).1.unwrap()
    }

    /// Appends an instruction without a result (store, print, ...).
    pub fn effect(&mut self, block: Block, kind: InstKind, loc: SrcLoc) -> Inst {
        self.append_inst(block, kind, Type::Unit, loc).0
    }

    /// Sets the terminator of `block`.
    pub fn set_terminator(&mut self, block: Block, term: Terminator) {
        self.func.blocks[block].term = term;
    }

    /// The function's signature. Like the rest of the builder, it can make
    /// IR the verifier rejects (the entry block's parameters must match).
    pub fn sig_mut(&mut self) -> &mut Signature {
        &mut self.func.sig
    }

    /// Records where the function is declared.
    pub fn set_loc(&mut self, loc: SrcLoc) {
        self.func.loc = loc;
    }

    /// Replaces the block order (entry first); blocks left out are
    /// dropped from the function.
    pub fn set_layout(&mut self, layout: Vec<Block>) {
        self.func.layout = layout;
    }

    /// `block`'s parameters, instructions and terminator, for construction
    /// that needs more than appending (SSA construction adds edge arguments
    /// to jumps emitted before the target's parameters existed). Like the
    /// rest of the builder, it can make IR the verifier rejects.
    pub fn block_mut(&mut self, block: Block) -> &mut BlockData {
        &mut self.func.blocks[block]
    }

    /// `inst`'s operation, result and location (SSA construction
    /// substitutes operands).
    pub fn inst_mut(&mut self, inst: Inst) -> &mut InstData {
        &mut self.func.insts[inst]
    }

    /// `value`'s type and recorded definition.
    pub fn value_mut(&mut self, value: Value) -> &mut ValueData {
        &mut self.func.values[value]
    }

    /// The block order, entry first.
    pub fn layout_mut(&mut self) -> &mut Vec<Block> {
        &mut self.func.layout
    }

    /// Keeps the parameters of `block` for which `keep` holds, renumbering
    /// the rest's definitions. Edge arguments are the caller's business.
    pub fn retain_block_params(&mut self, block: Block, mut keep: impl FnMut(Value) -> bool) {
        let func = &mut *self.func;
        func.blocks[block].params.retain(|&p| keep(p));
        for (i, &p) in func.blocks[block].params.iter().enumerate() {
            func.values[p].def = ValueDef::Param(block, i as u32);
        }
    }
}
