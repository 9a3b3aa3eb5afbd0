//! Waddle IR: an SSA IR with block parameters (Fritz ch. 3).
//!
//! A [`Program`] holds [`Function`]s and globals. A function is a CFG of
//! blocks; each block has typed parameters (in place of φ nodes), a list of
//! instructions and one terminator. See `DESIGN.md` for the canonical
//! properties the optimizer maintains.

mod builder;
mod entities;
mod function;
mod instructions;
mod types;

pub use builder::FunctionBuilder;
pub use entities::{Block, FuncId, GlobalId, Inst, Value};
pub use function::{BlockData, Function, GlobalData, Program, Signature, ValueData, ValueDef};
pub use instructions::{BinaryOp, BlockCall, Cmp, InstData, InstKind, SrcLoc, Terminator, UnaryOp};
pub use types::{ScalarType, Type};
