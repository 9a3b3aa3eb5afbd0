//! The regionalized VSDG: node and region arenas with typed indices.
//!
//! Lawrence §2.6 defines the VSDG as a hierarchical Petri net of places
//! (values and states) and transitions (operations, γ-nodes, complex
//! nodes). Here a transition is a [`NodeData`] and a place is one of its
//! output [`Port`]s, so every place has exactly one producer (§2.6.7 rule 3).
//! Every node that reads or writes the world takes the current state as its
//! last input and produces the next state as its last output, so the
//! stateful operations of a region are totally ordered (§2.6.7 rule 5,
//! App. B.4: "state used linearly").
//!
//! Hierarchy (§2.6.3 complex nodes, §5.5 RVSDG) is a tree of [`Region`]s:
//! - the root region is the function body; its argument node produces the
//!   function's parameters and the initial state;
//! - a γ-node ([`Op::Gamma`], §2.6.2) owns one region per arm; each arm ends
//!   in [`Tail::Yield`], and the γ's outputs select the yielded tuple of the
//!   arm its predicate picks (tupled γ, §2.6.4);
//! - a loop ([`Op::Theta`], the report's `iter`/μ unfolding of §2.6.6 in the
//!   θ shape of the later RVSDG work) owns a body region whose arguments are
//!   the loop-carried values. A loop with one exit is an ordinary node of
//!   its region: its outputs are the exit's values and the state, and the
//!   code after the loop continues in the same region (so a chain of loops
//!   does not nest). A loop with several exits owns one *exit region* per
//!   exit block; when the exits' paths meet again, the exit regions yield
//!   to that join like γ arms and the loop is again an ordinary node whose
//!   outputs are the join's values and the state. A loop with no exit, or
//!   whose exits never meet, ends its region ([`Tail::Loop`]).
//!
//! Regions are lexically scoped: a node may use any port visible in an
//! enclosing region (the report's flattening, §2.6.5, makes this the same
//! net as explicit region arguments). Where control leaves a region other
//! than by falling through to the γ's join, the region's [`Tail`] says so:
//! `return`, the next iteration, a loop exit, a multi-way branch whose arms
//! never meet again, or a loop. This keeps early exits (`return` in a loop,
//! `break`) without predicate variables.

use cranelift_entity::{entity_impl, PrimaryMap};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::ir::{InstKind, SrcLoc, Type};

/// A node (transition) of a [`Graph`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(u32);
entity_impl!(Node, "n");

/// A region of a [`Graph`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "r");

/// An output of a node: a place of the net.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Port {
    /// The producer.
    pub node: Node,
    /// Which output.
    pub index: u32,
}

/// A node's input places, inline up to four (nearly every node): one
/// allocation per node less when lifting, hash-consing and dropping.
pub type Ports = SmallVec<[Port; 4]>;

/// A node's output sorts, inline up to two (a value and the state).
pub type Sorts = SmallVec<[Sort; 2]>;

/// The sort of a place: a value of an IR type, or the state.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Sort {
    /// A value of this type.
    Val(Type),
    /// The state token.
    State,
}

/// What a node computes.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// The arguments of its region: the region's values, then the state.
    Args,
    /// One Waddle IR instruction. The operands inside the kind are
    /// placeholders; the real operands are the node's inputs, in
    /// [`InstKind::for_each_arg`] order (then the state, when stateful).
    Simple(InstKind),
    /// A γ-node: inputs are the predicate and the state; one arm region per
    /// case key and a last arm for the default; outputs are the yielded
    /// values, then the state.
    Gamma {
        /// Case keys of arms `0..keys.len()`; the last arm is the default.
        keys: Vec<i64>,
        /// Arm regions.
        arms: Vec<Region>,
    },
    /// A loop: inputs are the initial loop-carried values and the state.
    /// With one exit (`exits` empty, see [`NodeData::is_inline_theta`]) its
    /// outputs are the values its body passes to [`Tail::Break`] `0`, then
    /// the state, and it sits on its region's state chain like a call.
    /// With several exits that meet again, each exit region ends in
    /// [`Tail::Yield`] like a γ arm, and the outputs are the yielded values
    /// and the state: again an ordinary node of its region. Otherwise it
    /// has no outputs and ends its region as [`Tail::Loop`]; its exit
    /// regions receive the values instead.
    Theta {
        /// The body, run once per iteration.
        body: Region,
        /// One region per exit, entered with the exit's values and state
        /// (empty for a single-exit loop).
        exits: Vec<Region>,
    },
}

/// A node.
#[derive(Clone, Debug)]
pub struct NodeData {
    /// The operation.
    pub op: Op,
    /// Operand places, state last for stateful nodes.
    pub inputs: Ports,
    /// Sorts of the outputs, state last for stateful nodes.
    pub outputs: Sorts,
    /// The region the node was built in. Pure nodes are placed by the
    /// sequentializer wherever they are needed; for them this is only
    /// informative.
    pub region: Region,
    /// The innermost region whose arguments or stateful nodes the node
    /// depends on: it is visible in that region and every region inside it.
    pub scope: Region,
    /// Where a runtime error raised by the node points.
    pub loc: SrcLoc,
}

impl NodeData {
    /// Whether the node threads the state (consumes and produces it).
    pub fn is_stateful(&self) -> bool {
        matches!(self.outputs.last(), Some(Sort::State)) && !matches!(self.op, Op::Args)
    }

    /// Whether the node is a loop with outputs (a single exit, or exits
    /// that yield to a join): an ordinary node of its region, not a tail.
    pub fn is_inline_theta(&self) -> bool {
        matches!(self.op, Op::Theta { .. }) && !self.outputs.is_empty()
    }

    /// The state output port, for stateful nodes.
    pub fn state_port(&self, me: Node) -> Option<Port> {
        match self.outputs.last() {
            Some(Sort::State) => Some(Port {
                node: me,
                index: self.outputs.len() as u32 - 1,
            }),
            _ => None,
        }
    }
}

/// How a region's control leaves it.
#[derive(Clone, Debug, PartialEq)]
pub enum Tail {
    /// Still being built (never seen after lifting).
    Pending,
    /// Falls through to the owning γ's join with these values; state last.
    Yield(Vec<Port>),
    /// Returns from the function (value, then the state).
    Return(Option<Port>, Port),
    /// Starts the next iteration of the innermost loop with these
    /// loop-carried values; state last.
    Continue(Vec<Port>),
    /// Leaves the innermost loop through exit `k` with these values; state
    /// last. For a single-exit loop these become the θ's outputs.
    Break(u32, Vec<Port>),
    /// A branch whose arms never join again inside this region.
    Switch {
        /// Predicate (`bool` or `int`).
        pred: Port,
        /// The state the arms start in.
        state: Port,
        /// Case keys; the last arm is the default.
        keys: Vec<i64>,
        /// Arm regions (their argument node carries only the state).
        arms: Vec<Region>,
    },
    /// A loop ([`Op::Theta`]) with no exit or several exits ends the region.
    Loop(Node),
}

impl Tail {
    /// Calls `f` on every port the tail uses directly.
    pub fn for_each_use(&self, mut f: impl FnMut(Port)) {
        match self {
            Tail::Pending | Tail::Loop(_) => {}
            Tail::Yield(ps) | Tail::Continue(ps) | Tail::Break(_, ps) => {
                ps.iter().copied().for_each(f)
            }
            Tail::Return(v, s) => {
                v.iter().copied().for_each(&mut f);
                f(*s)
            }
            Tail::Switch { pred, state, .. } => {
                f(*pred);
                f(*state)
            }
        }
    }
}

/// Who owns a region.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Owner {
    /// The function body.
    Root,
    /// Arm `i` of a γ-node.
    Arm(Node, u32),
    /// The body of a loop.
    Body(Node),
    /// Exit `i` of a loop.
    Exit(Node, u32),
    /// Arm `i` of the [`Tail::Switch`] of a region.
    TailArm(Region, u32),
}

/// A region.
#[derive(Clone, Debug)]
pub struct RegionData {
    /// Its owner.
    pub owner: Owner,
    /// The enclosing region (`None` for the root).
    pub parent: Option<Region>,
    /// Nesting depth, 0 for the root.
    pub depth: u32,
    /// The node producing the region's arguments.
    pub args: Node,
    /// How control leaves.
    pub tail: Tail,
    /// The block of the lifted function where the region's code starts
    /// (`None` until the lifter enters it). The lifter unfolds a block
    /// reached on several paths into one region per path, and tail sharing
    /// merges their identical code again, so regions with the same source
    /// are one static copy in the end.
    pub source: Option<crate::ir::Block>,
}

/// The VSDG of one function.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Node arena.
    pub nodes: PrimaryMap<Node, NodeData>,
    /// Region arena.
    pub regions: PrimaryMap<Region, RegionData>,
    /// The function body.
    pub root: Region,
    /// Hash-consing table of pure nodes (Lawrence §2.7.3: the VSDG is
    /// closed under hash-consing).
    pub(super) cons: FxHashMap<(InstKind, Ports, Type), Node>,
}

impl Graph {
    /// A graph whose root region has arguments of types `params`.
    pub fn new(params: &[Type]) -> Graph {
        let mut g = Graph {
            nodes: PrimaryMap::new(),
            regions: PrimaryMap::new(),
            root: Region::from_u32(0),
            cons: FxHashMap::default(),
        };
        g.root = g.new_region(Owner::Root, None, params);
        g
    }

    /// A new region owned by `owner` inside `parent`, with value arguments
    /// of types `params` (and the state).
    pub fn new_region(&mut self, owner: Owner, parent: Option<Region>, params: &[Type]) -> Region {
        let depth = parent.map_or(0, |p| self.regions[p].depth + 1);
        let r = self.regions.next_key();
        let mut outputs: Sorts = params.iter().map(|&t| Sort::Val(t)).collect();
        outputs.push(Sort::State);
        let args = self.nodes.push(NodeData {
            op: Op::Args,
            inputs: Ports::new(),
            outputs,
            region: r,
            scope: r,
            loc: SrcLoc::NONE,
        });
        self.regions.push(RegionData {
            owner,
            parent,
            depth,
            args,
            tail: Tail::Pending,
            source: None,
        })
    }

    /// Port `index` of `node`.
    pub fn port(node: Node, index: u32) -> Port {
        Port { node, index }
    }

    /// The value arguments of region `r`, then its state argument.
    pub fn region_args(&self, r: Region) -> Vec<Port> {
        let a = self.regions[r].args;
        (0..self.nodes[a].outputs.len() as u32)
            .map(|i| Port { node: a, index: i })
            .collect()
    }

    /// The state argument of region `r`.
    pub fn region_state(&self, r: Region) -> Port {
        let a = self.regions[r].args;
        Port {
            node: a,
            index: self.nodes[a].outputs.len() as u32 - 1,
        }
    }

    /// The sort of a port.
    pub fn sort(&self, p: Port) -> Sort {
        self.nodes[p.node].outputs[p.index as usize]
    }

    /// The type of a value port (`Unit` for the state).
    pub fn ty(&self, p: Port) -> Type {
        match self.sort(p) {
            Sort::Val(t) => t,
            Sort::State => Type::Unit,
        }
    }

    /// Whether region `inner` is `outer` or nested inside it.
    pub fn is_within(&self, mut inner: Region, outer: Region) -> bool {
        super::work::tick(
            1 + self.regions[inner]
                .depth
                .saturating_sub(self.regions[outer].depth) as u64,
        );
        while self.regions[inner].depth > self.regions[outer].depth {
            inner = self.regions[inner]
                .parent
                .expect("non-root region has a parent");
        }
        inner == outer
    }

    /// The innermost region containing both `a` and `b`.
    pub fn lca(&self, mut a: Region, mut b: Region) -> Region {
        let start = (self.regions[a].depth, self.regions[b].depth);
        while self.regions[a].depth > self.regions[b].depth {
            a = self.regions[a].parent.expect("parent");
        }
        while self.regions[b].depth > self.regions[a].depth {
            b = self.regions[b].parent.expect("parent");
        }
        while a != b {
            a = self.regions[a].parent.expect("parent");
            b = self.regions[b].parent.expect("parent");
        }
        let d = self.regions[a].depth;
        super::work::tick(1 + (start.0 - d) as u64 + (start.1 - d) as u64);
        a
    }

    /// The deeper of two regions on one chain of enclosing regions.
    pub fn deeper(&self, a: Region, b: Region) -> Region {
        if self.regions[a].depth >= self.regions[b].depth {
            a
        } else {
            b
        }
    }

    /// The integer or boolean constant a port carries, if any.
    pub fn const_int(&self, p: Port) -> Option<i64> {
        match &self.nodes[p.node].op {
            Op::Simple(InstKind::IConst(k)) => Some(*k),
            Op::Simple(InstKind::BConst(b)) => Some(*b as i64),
            _ => None,
        }
    }

    /// Number of nodes of each kind: (simple, γ, θ).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for n in self.nodes.values() {
            match n.op {
                Op::Simple(_) => c.0 += 1,
                Op::Gamma { .. } => c.1 += 1,
                Op::Theta { .. } => c.2 += 1,
                Op::Args => {}
            }
        }
        c
    }
}
