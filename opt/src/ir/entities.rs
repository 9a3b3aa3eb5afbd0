//! Typed indices into the arenas of a function or program.
//!
//! Modeled on Cranelift's entity references: each is a `u32` newtype usable as
//! a key of `PrimaryMap`/`SecondaryMap`.

use cranelift_entity::entity_impl;

/// A basic block of a function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An SSA value: an instruction result or a block parameter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction of a function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A function of a program.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "fn");

/// A host function a program may call (registered by the embedder or
/// declared `extern`): an index into [`super::Program::host_fns`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostFnId(u32);
entity_impl!(HostFnId, "h");

/// A global variable of a program.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(u32);
entity_impl!(GlobalId, "g");
