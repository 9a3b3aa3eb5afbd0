//! Constant folding by the reference interpreter (rule R1, Govereau §2.4
//! "add 3 2 ↓ 5" with the exact machine semantics, Fig. 7.9; digest §5.1
//! independence rule).
//!
//! The validator has no constant folder of its own and does not use the
//! optimizer's: to fold `op(k1, k2)` it runs a one-instruction function
//! `fn(a, b) { return op(a, b) }` on the interpreter (the meaning of the
//! IR) and takes the result word. So a folding bug in SCCP or in the VSDG
//! constructor cannot hide behind the same bug in the validator, and
//! floating-point folds are exact (the lesson of §7.3.3). Operations that
//! trap (division by zero) are not folded.
//!
//! Each operation is prepared once per thread and cached.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use crate::abi::{TrapCode, Word};
use crate::interp::{Host, Interpreter};
use crate::ir::{
    BinaryOp, BlockData, FuncId, Function, InstData, InstKind, Program, Signature, SrcLoc,
    Terminator, Type, UnaryOp, ValueData, ValueDef,
};

/// A host for pure operations: no heap, no globals, unlimited fuel (also
/// used by the soundness tests to run pure functions).
pub(crate) struct PureHost;

impl Host for PureHost {
    fn intern_str(&mut self, _s: &str) -> Word {
        0
    }
    fn globals(&mut self) -> &mut [Word] {
        &mut []
    }
    fn array_new(&mut self, _: Type, _: &[Word], _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn array_repeat(&mut self, _: Type, _: Word, _: i64, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn array_push(&mut self, _: Word, _: Word, _: &[Word]) -> Result<(), TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn str_concat(&mut self, _: Word, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn to_str(&mut self, _: Type, _: Word, _: &[Word]) -> Result<Word, TrapCode> {
        Err(TrapCode::OutOfMemory)
    }
    fn print(&mut self, _: Type, _: Word) {}
    fn clock(&mut self) -> f64 {
        0.0
    }
    fn consume_fuel(&mut self, _: u64) -> Result<(), TrapCode> {
        Ok(())
    }
}

/// The operation a folding function computes.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Un(UnaryOp, Type),
    Bin(BinaryOp, Type, Type),
}

#[derive(Default)]
struct Folder {
    program: Program,
    interp: Option<Interpreter>,
    funcs: FxHashMap<Key, FuncId>,
}

thread_local! {
    static FOLDER: RefCell<Folder> = RefCell::new(Folder::default());
}

fn result_type(key: &Key) -> Type {
    match key {
        Key::Un(op, ty) => match op {
            UnaryOp::IToF => Type::Float,
            UnaryOp::FToI => Type::Int,
            _ => *ty,
        },
        Key::Bin(op, ty, _) => match op {
            BinaryOp::ICmp(_) | BinaryOp::FCmp(_) | BinaryOp::BCmp(_) => Type::Bool,
            _ => *ty,
        },
    }
}

/// `fn(a[, b]) { v = op(a[, b]); return v }`.
fn function(key: &Key) -> Function {
    let params: Vec<Type> = match key {
        Key::Un(_, t) => vec![*t],
        Key::Bin(_, a, b) => vec![*a, *b],
    };
    let ret = result_type(key);
    let mut f = Function::new(
        "fold",
        Signature {
            params: params.clone(),
            ret,
        },
    );
    let b0 = f.blocks.push(BlockData {
        params: Vec::new(),
        insts: Vec::new(),
        term: Terminator::Return(None),
    });
    let ps: Vec<_> = params
        .iter()
        .enumerate()
        .map(|(i, &ty)| {
            f.values.push(ValueData {
                ty,
                def: ValueDef::Param(b0, i as u32),
            })
        })
        .collect();
    let kind = match key {
        Key::Un(op, _) => InstKind::Unary(*op, ps[0]),
        Key::Bin(op, _, _) => InstKind::Binary(*op, ps[0], ps[1]),
    };
    let inst = f.insts.push(InstData {
        kind,
        result: None,
        loc: SrcLoc::NONE,
    });
    let r = f.values.push(ValueData {
        ty: ret,
        def: ValueDef::Inst(inst),
    });
    f.insts[inst].result = Some(r);
    f.blocks[b0].params = ps;
    f.blocks[b0].insts.push(inst);
    f.blocks[b0].term = Terminator::Return(Some(r));
    f.layout.push(b0);
    f
}

impl Folder {
    fn eval(&mut self, key: Key, args: &[Word]) -> Option<Word> {
        let id = match self.funcs.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.program.funcs.push(function(&key));
                let interp = self
                    .interp
                    .get_or_insert_with(|| Interpreter::new(&Program::default(), &mut PureHost));
                interp.update(&self.program, id, &mut PureHost);
                self.funcs.insert(key, id);
                id
            }
        };
        let interp = self.interp.as_mut()?;
        interp.call(&mut PureHost, id, args).ok()
    }
}

/// `op(x)` on a constant of type `ty`, by the interpreter.
pub fn unary(op: UnaryOp, ty: Type, x: u64) -> Option<u64> {
    FOLDER.with(|f| f.borrow_mut().eval(Key::Un(op, ty), &[x]))
}

/// `op(x, y)` on constants of types `tx`, `ty`, by the interpreter; `None`
/// when it traps (division by zero).
pub fn binary(op: BinaryOp, tx: Type, ty: Type, x: u64, y: u64) -> Option<u64> {
    FOLDER.with(|f| f.borrow_mut().eval(Key::Bin(op, tx, ty), &[x, y]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Cmp;

    #[test]
    fn folds_with_the_interpreters_semantics() {
        let i = |x: i64| x as u64;
        assert_eq!(
            binary(BinaryOp::IAdd, Type::Int, Type::Int, i(i64::MAX), 1),
            Some(i(i64::MIN))
        );
        assert_eq!(binary(BinaryOp::IShl, Type::Int, Type::Int, 1, 65), Some(2));
        assert_eq!(binary(BinaryOp::IDiv, Type::Int, Type::Int, 7, 0), None);
        assert_eq!(
            binary(BinaryOp::IDiv, Type::Int, Type::Int, i(i64::MIN), i(-1)),
            Some(i(i64::MIN))
        );
        assert_eq!(
            binary(BinaryOp::ICmp(Cmp::Lt), Type::Int, Type::Int, i(-1), 0),
            Some(1)
        );
        let f = |x: f64| x.to_bits();
        assert_eq!(
            binary(BinaryOp::FAdd, Type::Float, Type::Float, f(0.1), f(0.2)),
            Some(f(0.1 + 0.2))
        );
        assert_eq!(unary(UnaryOp::INeg, Type::Int, 5), Some(i(-5)));
        assert_eq!(unary(UnaryOp::FToI, Type::Float, f(f64::NAN)), Some(0));
    }
}
