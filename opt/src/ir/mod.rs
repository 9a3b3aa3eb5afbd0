//! Waddle IR: an SSA IR with block parameters (Fritz ch. 3).
//!
//! A [`Program`] holds [`Function`]s and globals. A function is a CFG of
//! blocks; each block has typed parameters (in place of φ nodes), a list of
//! instructions and one terminator. See `docs/architecture.md` ("Invariants") for the canonical
//! properties the optimizer maintains.

mod builder;
mod entities;
mod function;
mod inst_table;
mod instructions;
mod parse;
mod print;
mod types;
mod uses;
mod verify;

pub use builder::FunctionBuilder;
pub use entities::{Block, FuncId, GlobalId, HostFnId, Inst, Value};
pub use function::{
    BlockData, Function, GlobalData, HostFnDecl, Program, Signature, ValueData, ValueDef,
};
pub use instructions::{BinaryOp, BlockCall, Cmp, InstData, InstKind, SrcLoc, Terminator, UnaryOp};
pub use parse::{parse_function, parse_program, ParseError};
pub use print::{
    format_float_bits, print_function, print_function_as, print_inst, print_program,
    print_terminator, quote,
};
pub use types::{ScalarType, Type};
pub use uses::{UseLists, User};
pub use verify::{verify_function, verify_function_as, verify_program, VerifyError};
