//! The shared value graph: one arena of hash-consed nodes holding the
//! denotations of both functions (Govereau §2.2 step 3, "shared value
//! graph"; digest §5.3 sketch).
//!
//! A node is an operator with a payload, a type and argument nodes. Pure
//! operators are total (the interpreter's wrapping and shift-masking
//! semantics; a division's trap is a separate effect), so evaluating a
//! node speculatively is harmless, as the synchronous reading of the
//! thesis (§4.0.3) requires. Effects are threaded through one token
//! (Moggi's state monad, §2.3.1 and §3.3): every [`Op::Eff`] takes the
//! token as its last argument and is a pair whose [`Op::Proj`] 0 is the
//! result value and 1 the next token; an [`Op::Load`] reads the token and
//! produces a value only. Control is explicit through gated φ (§2.3.2),
//! μ at loop headers and η at loop exits (§2.3.3), indexed by loop-nest
//! depth instead of the thesis's σ (§4.0.3: "indexing all of the μ and η
//! nodes ... is equivalent").
//!
//! Nodes are hash-consed when created ([`Graph::intern`]) except μ nodes,
//! which are created open and patched once the loop body exists
//! ([`Graph::open_mu`], [`Graph::patch_mu`]); maximal sharing, including
//! of cycles, is then computed by partition refinement (`refine`).

use std::fmt::Write as _;
use std::hash::BuildHasher as _;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use smallvec::{smallvec, SmallVec};

use crate::ir::{BinaryOp, Cmp, FuncId, GlobalId, HostFnId, SrcLoc, Type, UnaryOp};

mod junctions;

#[cfg(test)]
thread_local! {
    /// The arguments [`Graph::junction`] compared with the rest of its
    /// conjunction or disjunction in search of a complement (tests bound
    /// their growth, `tests_chains`).
    pub(super) static PROBES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Adds `n` to [`PROBES`] (tests only).
#[cfg(test)]
fn count_probes(n: usize) {
    PROBES.with(|p| p.set(p.get() + n));
}

/// The argument list of a node.
pub type Args = SmallVec<[Id; 4]>;

/// A node of the shared graph.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Id(pub u32);

impl Id {
    /// The arena index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What reads memory without changing it ([`Op::Load`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LoadKind {
    /// `global_get g`: args `[tok]`.
    Global(GlobalId),
    /// `array_get a, i`: args `[a, i, tok]`.
    Elem,
    /// `array_len a`: args `[a, tok]`.
    Len,
}

/// An effect on the token ([`Op::Eff`]); the token is the last argument.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EffKind {
    /// Direct call (may do anything, may trap).
    Call(FuncId),
    /// Host call (may do anything, may trap).
    HostCall(HostFnId),
    /// `global_set g, v`.
    GlobalSet(GlobalId),
    /// Array literal with this element type (allocates).
    ArrayLit(Type),
    /// `[v; n]` (allocates, may trap).
    ArrayRepeat,
    /// `array_set a, i, v`.
    ArraySet,
    /// `array_push a, v` (may reallocate).
    ArrayPush,
    /// `array_pop a` (may trap).
    ArrayPop,
    /// `bounds_check a, i` (trap only).
    BoundsCheck,
    /// The division-by-zero check of an `idiv`/`irem` by a value not
    /// known to be non-zero (trap only).
    DivCheck,
    /// `assert c` (trap only).
    Assert,
    /// String concatenation (allocates).
    StrConcat,
    /// `to_str` of a value of this type (allocates).
    ToStr(Type),
    /// `print` of a value of this type (output).
    Print(Type),
    /// `clock` (reads the outside world).
    Clock,
}

impl EffKind {
    /// Whether the effect only checks a condition (may trap) and changes
    /// no state when it passes.
    pub fn is_check(self) -> bool {
        matches!(
            self,
            EffKind::BoundsCheck | EffKind::DivCheck | EffKind::Assert
        )
    }

    /// Whether the effect is an allocation of a fresh object (its value is
    /// distinct from every object that existed before it).
    pub fn allocates(self) -> bool {
        matches!(
            self,
            EffKind::ArrayLit(_) | EffKind::ArrayRepeat | EffKind::StrConcat | EffKind::ToStr(_)
        )
    }
}

/// The operator of a node with its payload.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// Function parameter `i` (shared by both sides).
    Param(u32),
    /// The effect token on entry (shared by both sides).
    Tok0,
    /// An `int`, `bool` (0/1) or `float` (IEEE bits) constant; the node's
    /// type says which.
    Const(u64),
    /// A string constant.
    Str(Box<str>),
    /// A pure unary operation (never `BNot`, which is [`Op::Not`]).
    Un(UnaryOp),
    /// A pure, total binary operation (`IDiv`/`IRem` by zero is some value;
    /// the trap is a [`EffKind::DivCheck`]). Never `Gt`/`Ge`: those are
    /// built as `Lt`/`Le` with swapped operands.
    Bin(BinaryOp),
    /// Byte length of a string.
    StrLen,
    /// Byte-wise string comparison.
    StrCmp(Cmp),
    /// Boolean negation (also the IR's `bnot`).
    Not,
    /// Conjunction of gates (n-ary, a set).
    And,
    /// Disjunction of gates (n-ary, a set).
    Or,
    /// Gated φ: args are `gate0, value0, gate1, value1, ...`; the gates
    /// are mutually exclusive, so the branches form a multiset.
    Phi,
    /// `μ_d(init, next)`: the value at loop depth `d` that is `init` on
    /// the first iteration and `next` of the previous iteration after.
    Mu(u16),
    /// `η_d(cont, value)`: `value` at the first iteration of the depth-`d`
    /// loop at which `cont` is false (the §4.0.3 polarity).
    Eta(u16),
    /// A memory read at the token (last argument).
    Load(LoadKind),
    /// An effect at the token (last argument): a pair (value, token).
    Eff(EffKind),
    /// Component 0 (value) or 1 (token) of an [`Op::Eff`].
    Proj(u8),
}

impl Op {
    /// Whether argument order does not matter (R0: canonical commutative
    /// order and φ branch sorting).
    pub fn commutative(&self) -> bool {
        match self {
            Op::Bin(b) => b.commutes() || matches!(b, BinaryOp::FAdd | BinaryOp::FMul),
            Op::StrCmp(Cmp::Eq | Cmp::Ne) => true,
            _ => false,
        }
    }

    /// Whether the arguments form a set (duplicates do not matter).
    pub fn is_set(&self) -> bool {
        matches!(self, Op::And | Op::Or)
    }
}

/// Which function a node was first built for (for reports).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Side {
    /// The function before the transformation.
    Before,
    /// The function after it.
    After,
}

/// One node: operator, type (`Unit` for tokens and effect pairs) and
/// arguments.
#[derive(PartialEq, Eq, Hash, Debug)]
pub struct Node {
    /// Operator and payload.
    pub op: Op,
    /// Result type.
    pub ty: Type,
    /// Argument nodes (inline up to four: most nodes have at most four,
    /// so copying a node allocates nothing).
    pub args: Args,
}

impl Clone for Node {
    /// A copy; the arguments by one memory copy (`Id` is `Copy`), not
    /// element by element as `SmallVec`'s own `Clone` does.
    fn clone(&self) -> Node {
        Node {
            op: self.op.clone(),
            ty: self.ty,
            args: SmallVec::from_slice(&self.args),
        }
    }
}

/// Where a node came from: the side, the IR value's printed name and the
/// instruction's source location.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The function it was built for.
    pub side: Side,
    /// The IR entity, e.g. `v12` or `block3 param 0`.
    pub what: String,
    /// The source location of the instruction (unknown for parameters).
    pub loc: SrcLoc,
}

/// The arena of nodes with the hash-consing table.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Node>,
    /// The hash-consing table: the id of every interned node, found by
    /// the hash of its (operator, type, arguments) as interned. The node
    /// itself lives only in `nodes` (no second copy per node).
    table: HashTable<Id>,
    /// The hash each node was interned under; `None` for a node made
    /// open ([`Graph::open_mu`]), which is not in the table.
    hashes: Vec<Option<u64>>,
    /// The contents as interned of the nodes in the table that
    /// [`Graph::set_arg`] or [`Graph::patch_mu`] edited since: the table
    /// keeps finding such a node by what it was interned as, never by
    /// what it is now (as a table keyed by a copy of each node did).
    frozen: FxHashMap<Id, Node>,
    origins: FxHashMap<Id, Origin>,
    /// The continue condition of each μ's loop (`build`; R8).
    conts: FxHashMap<Id, Id>,
    /// R8's case-split copies: (value, gate) → the value copied under the
    /// gate, in order of creation (extra refinement roots).
    cases: Vec<((Id, Id), Id)>,
    /// The `And`/`Or` nodes [`Graph::junction`] made or found whose
    /// arguments, as it saw them, hold no node next to its negation (an
    /// argument edit since, [`Graph::set_arg`], is in `frozen`).
    complement_free: rustc_hash::FxHashSet<Id>,
    /// The `And`/`Or` that each such node extended (its largest
    /// complement-free argument of the same operator when made).
    extends: FxHashMap<Id, Id>,
    /// The kind of each node ([`Graph::kind`]), numbered in order of first
    /// appearance.
    kinds: Vec<u32>,
    /// The number of each kind: (operator, type, arity, sets with arity 0).
    kind_ids: FxHashMap<(Op, Type, usize), u32>,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Graph {
        Graph::default()
    }

    /// Number of nodes ever created.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node exists.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node `id`.
    pub fn node(&self, id: Id) -> &Node {
        &self.nodes[id.index()]
    }

    /// The kind of node `id`: one number per (operator with its payload,
    /// type, arity), the arity of a set ([`Op::is_set`]) counting as 0;
    /// the first partition of `refine`. Editing arguments never changes a
    /// node's kind, so it is computed once, when the node is made, instead
    /// of hashing the operator of every reached node in every round.
    pub fn kind(&self, id: Id) -> u32 {
        self.kinds[id.index()]
    }

    /// The number of distinct kinds ([`Graph::kind`] is below it).
    pub fn kind_count(&self) -> usize {
        self.kind_ids.len()
    }

    /// Records the kind of the node just pushed.
    fn push_kind(&mut self) {
        let node = self.nodes.last().expect("a node was pushed");
        let arity = if node.op.is_set() { 0 } else { node.args.len() };
        let next = self.kind_ids.len() as u32;
        let k = match self.kind_ids.get(&(node.op.clone(), node.ty, arity)) {
            Some(&k) => k,
            None => {
                self.kind_ids
                    .insert((node.op.clone(), node.ty, arity), next);
                next
            }
        };
        self.kinds.push(k);
    }

    /// Replaces argument `i` of `id` (used when substituting rewritten
    /// nodes; the hash-consing table is not updated, refinement restores
    /// sharing).
    pub fn set_arg(&mut self, id: Id, i: usize, to: Id) {
        self.freeze(id);
        self.nodes[id.index()].args[i] = to;
    }

    /// Keeps the contents `id` was interned with, before its first edit.
    fn freeze(&mut self, id: Id) {
        if self.hashes[id.index()].is_some() && !self.frozen.contains_key(&id) {
            self.frozen.insert(id, self.nodes[id.index()].clone());
        }
    }

    /// The hash of a node with these contents in the table.
    fn key_hash(op: &Op, ty: Type, args: &[Id]) -> u64 {
        FxBuildHasher.hash_one((op, ty, args))
    }

    /// The interned node with these contents, if any.
    fn find(&self, hash: u64, op: &Op, ty: Type, args: &[Id]) -> Option<Id> {
        let (nodes, frozen) = (&self.nodes, &self.frozen);
        self.table
            .find(hash, |&id| {
                let n = frozen.get(&id).unwrap_or(&nodes[id.index()]);
                n.ty == ty && n.op == *op && n.args[..] == *args
            })
            .copied()
    }

    /// The node with this operator, type and arguments, created if new.
    pub fn intern(&mut self, op: Op, ty: Type, args: impl Into<Args>) -> Id {
        let args: Args = args.into();
        let hash = Self::key_hash(&op, ty, &args);
        if let Some(id) = self.find(hash, &op, ty, &args) {
            return id;
        }
        let id = Id(self.nodes.len() as u32);
        #[cfg(test)]
        {
            super::count_work(1, 1);
            super::count_work(2, args.len());
        }
        self.nodes.push(Node { op, ty, args });
        self.push_kind();
        self.hashes.push(Some(hash));
        let hashes = &self.hashes;
        self.table
            .insert_unique(hash, id, |&x| hashes[x.index()].unwrap_or(0));
        id
    }

    /// A new μ node of depth `depth` with `init`; its `next` is itself
    /// until [`Graph::patch_mu`].
    pub fn open_mu(&mut self, depth: u16, ty: Type, init: Id) -> Id {
        let id = Id(self.nodes.len() as u32);
        self.nodes.push(Node {
            op: Op::Mu(depth),
            ty,
            args: smallvec![init, id],
        });
        self.push_kind();
        self.hashes.push(None);
        id
    }

    /// Sets the `next` argument of an open μ.
    pub fn patch_mu(&mut self, mu: Id, next: Id) {
        self.freeze(mu);
        self.nodes[mu.index()].args[1] = next;
    }

    /// Records `cont` as the continue condition of the loop of `mu`: tick
    /// `k + 1` of the loop exists only when `cont` holds at tick `k`.
    pub fn set_loop_cont(&mut self, mu: Id, cont: Id) {
        self.conts.insert(mu, cont);
    }

    /// Records `copy` as `value` copied under `gate` (R8's case split).
    pub fn set_case_copy(&mut self, value: Id, gate: Id, copy: Id) {
        self.cases.push(((value, gate), copy));
    }

    /// The copy of `value` under `gate`, if made.
    pub fn case_copy(&self, value: Id, gate: Id) -> Option<Id> {
        (self.cases.iter())
            .find(|c| c.0 == (value, gate))
            .map(|c| c.1)
    }

    /// How many case-split copies exist.
    pub fn case_count(&self) -> usize {
        self.cases.len()
    }

    /// The case-split copies (extra roots: refinement must class them).
    pub fn case_roots(&self) -> Vec<Id> {
        self.cases.iter().map(|c| c.1).collect()
    }

    /// Replaces the case-split copies by `roots` (after substitution).
    pub fn set_case_roots(&mut self, roots: &[Id]) {
        for (c, &r) in self.cases.iter_mut().zip(roots) {
            c.1 = r;
        }
    }

    /// The continue condition of the loop of `mu`, if recorded.
    pub fn loop_cont(&self, mu: Id) -> Option<Id> {
        self.conts.get(&mu).copied()
    }

    /// Every recorded (μ, continue condition) pair, in no order.
    pub fn loop_conts(&self) -> Vec<(Id, Id)> {
        self.conts.iter().map(|(&m, &c)| (m, c)).collect()
    }

    /// Records where `id` came from, unless it already has an origin.
    pub fn set_origin(&mut self, id: Id, origin: Origin) {
        self.origins.entry(id).or_insert(origin);
    }

    /// Where `id` came from, if recorded.
    pub fn origin(&self, id: Id) -> Option<&Origin> {
        self.origins.get(&id)
    }

    /// A constant of type `ty` with bits `bits`.
    pub fn konst(&mut self, ty: Type, bits: u64) -> Id {
        self.intern(Op::Const(bits), ty, Args::new())
    }

    /// The `bool` constant `b`.
    pub fn boolean(&mut self, b: bool) -> Id {
        self.konst(Type::Bool, b as u64)
    }

    /// The constant bits of `id` if it is a constant.
    pub fn const_of(&self, id: Id) -> Option<u64> {
        match self.node(id).op {
            Op::Const(k) => Some(k),
            _ => None,
        }
    }

    /// The `bool` value of `id` if it is a `bool` constant.
    pub fn bool_of(&self, id: Id) -> Option<bool> {
        let n = self.node(id);
        match n.op {
            Op::Const(k) if n.ty == Type::Bool => Some(k != 0),
            _ => None,
        }
    }

    /// `¬a`, simplified on construction (constants, double negation,
    /// integer comparisons).
    pub fn not(&mut self, a: Id) -> Id {
        if let Some(b) = self.bool_of(a) {
            return self.boolean(!b);
        }
        let n = self.node(a).clone();
        match n.op {
            Op::Not => n.args[0],
            Op::Bin(BinaryOp::ICmp(cc)) => {
                let (x, y) = (n.args[0], n.args[1]);
                match cc {
                    // ¬(x < y) = y <= x; ¬(x <= y) = y < x (integers only).
                    Cmp::Lt => self.cmp(BinaryOp::ICmp(Cmp::Le), y, x),
                    Cmp::Le => self.cmp(BinaryOp::ICmp(Cmp::Lt), y, x),
                    Cmp::Eq => self.cmp(BinaryOp::ICmp(Cmp::Ne), x, y),
                    Cmp::Ne => self.cmp(BinaryOp::ICmp(Cmp::Eq), x, y),
                    Cmp::Gt => self.cmp(BinaryOp::ICmp(Cmp::Le), x, y),
                    Cmp::Ge => self.cmp(BinaryOp::ICmp(Cmp::Lt), x, y),
                }
            }
            Op::Bin(BinaryOp::BCmp(Cmp::Eq)) => {
                self.cmp(BinaryOp::BCmp(Cmp::Ne), n.args[0], n.args[1])
            }
            Op::Bin(BinaryOp::BCmp(Cmp::Ne)) => {
                self.cmp(BinaryOp::BCmp(Cmp::Eq), n.args[0], n.args[1])
            }
            _ => self.intern(Op::Not, Type::Bool, Args::from_slice(&[a])),
        }
    }

    /// The existing node that is `¬x`, if any (without creating one).
    pub fn negation(&self, x: Id) -> Option<Id> {
        let n = self.node(x);
        let look = |op: Op, args: &[Id]| {
            self.find(Self::key_hash(&op, Type::Bool, args), &op, Type::Bool, args)
        };
        match n.op {
            Op::Not => Some(n.args[0]),
            Op::Bin(BinaryOp::ICmp(cc)) => {
                let (a, b) = (n.args[0], n.args[1]);
                let (c, args) = match cc {
                    Cmp::Lt => (Cmp::Le, [b, a]),
                    Cmp::Le => (Cmp::Lt, [b, a]),
                    Cmp::Eq => (Cmp::Ne, [a, b]),
                    Cmp::Ne => (Cmp::Eq, [a, b]),
                    _ => return None,
                };
                look(Op::Bin(BinaryOp::ICmp(c)), &args).or_else(|| look(Op::Not, &[x]))
            }
            _ => look(Op::Not, &[x]),
        }
    }

    /// A comparison, with `>`/`>=` built as `<`/`<=` of swapped operands.
    pub fn cmp(&mut self, op: BinaryOp, a: Id, b: Id) -> Id {
        let swap = |cc: Cmp| match cc {
            Cmp::Gt => (Cmp::Lt, true),
            Cmp::Ge => (Cmp::Le, true),
            c => (c, false),
        };
        let (op, s) = match op {
            BinaryOp::ICmp(cc) => {
                let (c, s) = swap(cc);
                (BinaryOp::ICmp(c), s)
            }
            BinaryOp::FCmp(cc) => {
                let (c, s) = swap(cc);
                (BinaryOp::FCmp(c), s)
            }
            BinaryOp::BCmp(cc) => {
                let (c, s) = swap(cc);
                (BinaryOp::BCmp(c), s)
            }
            other => (other, false),
        };
        let (a, b) = if s { (b, a) } else { (a, b) };
        self.intern(Op::Bin(op), Type::Bool, Args::from_slice(&[a, b]))
    }

    /// A binary operation of result type `ty`.
    pub fn bin(&mut self, op: BinaryOp, ty: Type, a: Id, b: Id) -> Id {
        match op {
            BinaryOp::ICmp(_) | BinaryOp::FCmp(_) | BinaryOp::BCmp(_) => self.cmp(op, a, b),
            _ => self.intern(Op::Bin(op), ty, Args::from_slice(&[a, b])),
        }
    }

    /// A gated φ of type `ty` over `(gate, value)` branches; a single
    /// branch or equal values give the value itself.
    pub fn phi(&mut self, ty: Type, branches: &[(Id, Id)]) -> Id {
        let live: Vec<(Id, Id)> = branches
            .iter()
            .copied()
            .filter(|&(g, _)| self.bool_of(g) != Some(false))
            .collect();
        if let Some(&(_, v)) = live.iter().find(|&&(g, _)| self.bool_of(g) == Some(true)) {
            return v;
        }
        if !live.is_empty() && live.iter().all(|&(_, v)| v == live[0].1) {
            return live[0].1;
        }
        let mut args = Args::with_capacity(live.len() * 2);
        let mut sorted = live;
        sorted.sort();
        for (g, v) in sorted {
            args.push(g);
            args.push(v);
        }
        self.intern(Op::Phi, ty, args)
    }

    /// Pretty-prints `id` to `depth` levels (deeper arguments as `#id`).
    pub fn show(&self, id: Id, depth: usize) -> String {
        let mut s = String::new();
        self.show_into(&mut s, id, depth);
        s
    }

    fn show_into(&self, s: &mut String, id: Id, depth: usize) {
        let n = self.node(id);
        match &n.op {
            Op::Const(k) => {
                let _ = match n.ty {
                    Type::Bool => write!(s, "{}", *k != 0),
                    Type::Float => write!(s, "{:?}", f64::from_bits(*k)),
                    _ => write!(s, "{}", *k as i64),
                };
                return;
            }
            Op::Param(i) => {
                let _ = write!(s, "param{i}");
                return;
            }
            Op::Tok0 => {
                s.push_str("tok0");
                return;
            }
            Op::Str(t) => {
                let _ = write!(s, "{t:?}");
                return;
            }
            op => {
                let name = match op {
                    Op::Un(u) => format!("{u:?}"),
                    Op::Bin(b) => format!("{b:?}"),
                    Op::Mu(d) => format!("mu{d}"),
                    Op::Eta(d) => format!("eta{d}"),
                    Op::Load(k) => format!("load.{k:?}"),
                    Op::Eff(k) => format!("eff.{k:?}"),
                    Op::Proj(i) => format!("proj{i}"),
                    other => format!("{other:?}"),
                };
                let _ = write!(s, "{name}#{}", id.0);
            }
        }
        if depth == 0 {
            return;
        }
        s.push('(');
        for (i, &a) in n.args.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            self.show_into(s, a, depth - 1);
        }
        s.push(')');
    }
}
