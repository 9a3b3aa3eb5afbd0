//! Functions and programs: the arenas that hold blocks, values and
//! instructions.

use cranelift_entity::PrimaryMap;

use super::entities::{Block, FuncId, GlobalId, HostFnId, Inst, Value};
use super::instructions::{InstData, InstKind, SrcLoc, Terminator};
use super::types::Type;

/// Where an SSA value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// The result of an instruction.
    Inst(Inst),
    /// The `index`-th parameter of a block.
    Param(Block, u32),
}

/// Per-value information.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ValueData {
    /// The value's type (never `Unit`).
    pub ty: Type,
    /// Its definition.
    pub def: ValueDef,
}

/// A basic block: parameters, a straight-line instruction list, a terminator.
#[derive(Clone, PartialEq, Debug)]
pub struct BlockData {
    /// Block parameters (they replace φ nodes).
    pub params: Vec<Value>,
    /// Instructions in execution order.
    pub insts: Vec<Inst>,
    /// How control leaves the block.
    pub term: Terminator,
}

/// A function signature.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Signature {
    /// Parameter types.
    pub params: Vec<Type>,
    /// Result type, `Unit` for `void`.
    pub ret: Type,
}

/// A function: a control-flow graph of blocks with an entry block.
///
/// Blocks, values and instructions live in arenas indexed by typed ids;
/// the layout lists the blocks that belong to the function, entry first.
/// Blocks or instructions removed by a transformation stay in the arenas but
/// are no longer reachable from the layout / a block's `insts`.
///
/// Outside this crate the function is read-only ([`Function::name`],
/// [`Function::sig`], [`Function::loc`], [`Function::blocks`],
/// [`Function::insts`], [`Function::values`], [`Function::layout`]): it is
/// built by the [`crate::ir::FunctionBuilder`] or the text parser and
/// changed only through the always-canonical [`crate::editor::Editor`] and
/// the passes of this crate, so nothing else can break the invariants the
/// editor maintains. The few edits other crates need that keep every
/// invariant (renumbering callees and source files when linking) are
/// methods here.
#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    /// Source-level name (`.main` for a program's top-level code).
    pub(crate) name: String,
    /// Parameter and result types; the entry block's parameters are the
    /// function's parameters.
    pub(crate) sig: Signature,
    /// Block arena.
    pub(crate) blocks: PrimaryMap<Block, BlockData>,
    /// Instruction arena.
    pub(crate) insts: PrimaryMap<Inst, InstData>,
    /// Value arena.
    pub(crate) values: PrimaryMap<Value, ValueData>,
    /// The function's blocks in print order, entry first. Empty for a
    /// function that is only declared (REPL prelude, see [`Function::is_declaration`]).
    pub(crate) layout: Vec<Block>,
    /// Where the function is declared.
    pub(crate) loc: SrcLoc,
}

impl Function {
    /// An empty function (no blocks: a declaration until blocks are added).
    pub fn new(name: impl Into<String>, sig: Signature) -> Function {
        Function {
            name: name.into(),
            sig,
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            values: PrimaryMap::new(),
            layout: Vec::new(),
            loc: SrcLoc::NONE,
        }
    }

    /// Gives back the spare capacity its edits left in the arenas and the
    /// block lists, once a pass pipeline is done with the function.
    ///
    /// A small function is replaced by a copy of itself: the passes grow its
    /// arenas by doubling next to their own scratch, and arenas kept in
    /// place stay behind as islands when the scratch is freed; on a program
    /// of many small functions the allocator's free lists fill with such
    /// fragments spread over the whole heap (see `passes::pipeline`). The
    /// copy is allocated all together, after the scratch is gone.
    ///
    /// A large function (arenas of [`Function::SETTLE_COPY_LIMIT`] bytes or
    /// more) is shrunk in place instead: its arenas are blocks of their own
    /// that the allocator maps apart from the small-object heap, so they
    /// leave no islands, and shrinking them moves no data, while a copy
    /// touches every byte again in freshly mapped pages. On one function
    /// of 1 000 000 statements the copy was about 15 % of the process's
    /// page faults.
    pub fn settle(&mut self) {
        if self.arena_bytes() < Self::SETTLE_COPY_LIMIT {
            *self = self.clone();
            return;
        }
        self.blocks.shrink_to_fit();
        self.insts.shrink_to_fit();
        self.values.shrink_to_fit();
        self.layout.shrink_to_fit();
        for b in self.blocks.values_mut() {
            b.params.shrink_to_fit();
            b.insts.shrink_to_fit();
        }
    }

    /// The arena size from which [`Function::settle`] shrinks in place
    /// instead of copying: twice glibc's default threshold for serving an
    /// allocation by a mapping of its own (128 KiB).
    pub const SETTLE_COPY_LIMIT: usize = 256 * 1024;

    /// The bytes the instruction, value and block arenas hold (their
    /// entries, without spare capacity or what entries point to).
    fn arena_bytes(&self) -> usize {
        self.insts.len() * std::mem::size_of::<InstData>()
            + self.values.len() * std::mem::size_of::<ValueData>()
            + self.blocks.len() * std::mem::size_of::<BlockData>()
    }

    /// The source-level name (`.main` for a program's top-level code).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Parameter and result types; the entry block's parameters are the
    /// function's parameters.
    pub fn sig(&self) -> &Signature {
        &self.sig
    }

    /// Where the function is declared ([`SrcLoc::NONE`] when unknown).
    pub fn loc(&self) -> SrcLoc {
        self.loc
    }

    /// A declaration of this function: the same name, signature and
    /// location, no body.
    pub fn declaration(&self) -> Function {
        let mut decl = Function::new(self.name.clone(), self.sig.clone());
        decl.loc = self.loc;
        decl
    }

    /// The block arena (blocks no longer in the layout included).
    pub fn blocks(&self) -> &PrimaryMap<Block, BlockData> {
        &self.blocks
    }

    /// The instruction arena (instructions no longer in a block included).
    pub fn insts(&self) -> &PrimaryMap<Inst, InstData> {
        &self.insts
    }

    /// The value arena.
    pub fn values(&self) -> &PrimaryMap<Value, ValueData> {
        &self.values
    }

    /// The function's blocks in print order, entry first; empty for a
    /// declaration.
    pub fn layout(&self) -> &[Block] {
        &self.layout
    }

    /// Replaces every direct callee `c` by `map(c)` (linking a function into
    /// another program's id space).
    pub fn remap_callees(&mut self, mut map: impl FnMut(FuncId) -> FuncId) {
        for data in self.insts.values_mut() {
            if let InstKind::Call(callee, _) = &mut data.kind {
                *callee = map(*callee);
            }
        }
    }

    /// Adds `base` to the file index of every known source location of the
    /// function (linking its program's file table after another's).
    pub fn offset_files(&mut self, base: u32) {
        for data in self.insts.values_mut() {
            if data.loc.is_known() {
                data.loc.file += base;
            }
        }
        if self.loc.is_known() {
            self.loc.file += base;
        }
    }

    /// The entry block. Panics on a declaration.
    pub fn entry(&self) -> Block {
        self.layout[0]
    }

    /// Whether the function has no body (declared only).
    pub fn is_declaration(&self) -> bool {
        self.layout.is_empty()
    }

    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// The instruction data of `inst`.
    pub fn inst(&self, inst: Inst) -> &InstData {
        &self.insts[inst]
    }

    /// Number of instructions reachable from the layout (a size measure).
    pub fn inst_count(&self) -> usize {
        self.layout
            .iter()
            .map(|&b| self.blocks[b].insts.len() + 1)
            .sum()
    }
}

/// A global variable.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct GlobalData {
    /// Source name.
    pub name: String,
    /// Type; the global holds its zero value until first assigned.
    pub ty: Type,
}

/// A host function as the program sees it: its name and signature. What
/// runs when it is called is the host's business (`Host::host_call`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HostFnDecl {
    /// The name scripts call it by.
    pub name: String,
    /// Parameter and result types.
    pub sig: Signature,
}

/// A whole program: functions, globals, the source file table, and the
/// function holding the top-level statements.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Program {
    /// All functions; calls refer to them by [`FuncId`].
    pub funcs: PrimaryMap<FuncId, Function>,
    /// All globals.
    pub globals: PrimaryMap<GlobalId, GlobalData>,
    /// File names, indexed by [`SrcLoc::file`].
    pub files: Vec<String>,
    /// The function that runs the program's top-level statements.
    pub main: Option<FuncId>,
    /// Host functions [`super::InstKind::HostCall`] may call. Ids are the
    /// host's: a later program of the same host keeps the earlier ids.
    pub host_fns: PrimaryMap<HostFnId, HostFnDecl>,
}

impl Program {
    /// Looks a function up by name.
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// Looks a global up by name (the last one declared with that name).
    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        self.globals
            .iter()
            .rev()
            .find(|(_, g)| g.name == name)
            .map(|(id, _)| id)
    }

    /// `file:line:col` for a location, or `<unknown>`.
    pub fn describe_loc(&self, loc: SrcLoc) -> String {
        if !loc.is_known() {
            return "<unknown>".to_string();
        }
        let file = self
            .files
            .get(loc.file as usize)
            .map(String::as_str)
            .unwrap_or("<unknown>");
        format!("{file}:{}:{}", loc.line, loc.col)
    }
}
