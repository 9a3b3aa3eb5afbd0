//! Sequentialization: VSDG → canonical Waddle IR.
//!
//! Lawrence ch. 3–4 split sequentialization into proceduralization
//! (choosing *where* each node is evaluated: call-by-need, §3.1), making
//! the result duplication-free, and node scheduling (ch. 6). This module
//! implements the simple, always-correct core of that plan (digest §6.1
//! steps 4–7 without γ-ordering or splitting):
//!
//! - **Placement (proceduralization).** Stateful nodes, γ-nodes and loops
//!   stay in the region they were built in; their order there is the state
//!   chain, so no effect is speculated, skipped or repeated (§1.4 of the
//!   digest: only call-by-need is safe with state). Every pure node goes
//!   to the innermost region containing all its uses — the lowest common
//!   ancestor in the region tree — so a value needed by one γ arm only is
//!   computed in that arm (partial dead code elimination for free, digest
//!   T5) and a value needed by both arms once before the branch. Each node
//!   is emitted once, so it is evaluated at most once per execution of its
//!   region (no evaluation twice on a path). Pure nodes are never trapping
//!   (trapping ones are stateful), so moving one above a branch only
//!   speculates a cheap total computation.
//! - **Loop invariants (§5.4, digest §6.3).** A pure node placed directly
//!   in a loop body whose operands are all visible outside the loop is
//!   demanded on every iteration; it moves to the loop's preheader.
//! - **Scheduling.** Within a region, nodes are listed in a topological
//!   order of their dependences (values, state, and the uses made inside γ
//!   arms), ties broken by creation order, which follows the source.
//! - **Emission (digest §6.2).** A γ becomes a branch to one block per arm
//!   and a join block whose parameters are the γ's outputs; a loop becomes
//!   a header block (parameters: the loop-carried values) and one block per
//!   exit. The result is made canonical (`canon`) for the passes after it.

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::ir::{
    Block, BlockCall, Function, FunctionBuilder, Signature, SrcLoc, Terminator, Type, Value,
};

use super::dne::{liveness, Liveness};
use super::graph::{Graph, Node, Op, Owner, Port, Region, Sort, Tail};
use super::Unsupported;

/// Where each live node is evaluated.
pub struct Placement {
    /// The region of every live node.
    pub region: SecondaryMap<Node, Option<Region>>,
    /// The nodes listed in each region (θ-nodes and argument nodes excluded).
    pub items: SecondaryMap<Region, Vec<Node>>,
    /// Dependence edges between the items of one region.
    succs: SecondaryMap<Node, Vec<Node>>,
    indeg: SecondaryMap<Node, u32>,
}

/// Whether a node is placed freely (pure) rather than pinned.
fn is_pure(g: &Graph, n: Node) -> bool {
    let d = &g.nodes[n];
    matches!(d.op, Op::Simple(_)) && !d.is_stateful()
}

/// Live nodes, operands before users.
fn topo(g: &Graph, live: &Liveness) -> Vec<Node> {
    let mut order = Vec::new();
    let mut seen = cranelift_entity::EntitySet::<Node>::new();
    for start in g.nodes.keys() {
        if !live.nodes.contains(start) || !seen.insert(start) {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        while let Some(&mut (n, ref mut i)) = stack.last_mut() {
            let inputs = &g.nodes[n].inputs;
            if *i < inputs.len() {
                let m = inputs[*i].node;
                *i += 1;
                if seen.insert(m) {
                    stack.push((m, 0));
                }
            } else {
                order.push(n);
                stack.pop();
            }
        }
    }
    order
}

/// Computes where every live node is evaluated and the order constraints
/// inside each region.
pub fn place(g: &Graph, live: &Liveness) -> Placement {
    let order = topo(g, live);
    // Users: a node, or the tail of a region.
    let mut users: SecondaryMap<Node, Vec<Result<Node, Region>>> = SecondaryMap::new();
    for &u in &order {
        for p in &g.nodes[u].inputs {
            users[p.node].push(Ok(u));
        }
    }
    for r in g.regions.keys().filter(|&r| live.regions.contains(r)) {
        g.regions[r]
            .tail
            .for_each_use(|p| users[p.node].push(Err(r)));
    }
    let mut pl = Placement {
        region: SecondaryMap::new(),
        items: SecondaryMap::new(),
        succs: SecondaryMap::new(),
        indeg: SecondaryMap::new(),
    };
    for &n in order.iter().rev() {
        if !is_pure(g, n) {
            pl.region[n] = Some(g.nodes[n].region);
            continue;
        }
        let mut at: Option<Region> = None;
        for u in &users[n] {
            let r = match *u {
                Ok(u) => pl.region[u].expect("users are placed first"),
                Err(r) => r,
            };
            at = Some(at.map_or(r, |a| g.lca(a, r)));
        }
        let mut at = at.unwrap_or(g.nodes[n].scope);
        // Loop-invariant code motion out of loop bodies.
        let scope_depth = g.regions[g.nodes[n].scope].depth;
        while let Owner::Body(t) = g.regions[at].owner {
            let outer = g.nodes[t].region;
            if scope_depth > g.regions[outer].depth {
                break;
            }
            at = outer;
        }
        pl.region[n] = Some(at);
    }
    for &n in &order {
        if matches!(g.nodes[n].op, Op::Args | Op::Theta { .. }) {
            continue;
        }
        let r = pl.region[n].expect("placed");
        pl.items[r].push(n);
    }
    // Dependences between items of one region.
    for &u in &order {
        if matches!(g.nodes[u].op, Op::Args) {
            continue;
        }
        let ru = pl.region[u].expect("placed");
        for p in &g.nodes[u].inputs {
            let n = p.node;
            if matches!(g.nodes[n].op, Op::Args) {
                continue;
            }
            let rn = pl.region[n].expect("placed");
            let item = if matches!(g.nodes[u].op, Op::Theta { .. }) {
                None
            } else if ru == rn {
                Some(u)
            } else {
                // The item of `rn` that contains the use.
                let mut c = ru;
                while g.regions[c].parent != Some(rn) {
                    c = g.regions[c]
                        .parent
                        .expect("uses are inside the definition's region");
                }
                match g.regions[c].owner {
                    Owner::Arm(gm, _) => Some(gm),
                    _ => None,
                }
            };
            if let Some(item) = item {
                pl.succs[n].push(item);
                pl.indeg[item] += 1;
            }
        }
    }
    pl
}

/// What a region's code jumps to when it ends.
#[derive(Clone)]
struct Ctx {
    /// The join of the innermost γ.
    join: Option<Block>,
    /// The header and exit blocks of the innermost loop.
    lp: Option<(Block, Vec<Block>)>,
}

struct Emitter<'g> {
    g: &'g Graph,
    pl: Placement,
    f: Function,
    vals: FxHashMap<Port, Value>,
}

/// Sequentializes `g` into a new function with the given name, signature
/// and location. The result is in canonical form.
pub fn sequentialize(
    g: &Graph,
    name: &str,
    sig: &Signature,
    loc: SrcLoc,
) -> Result<Function, Unsupported> {
    let live = liveness(g);
    let pl = place(g, &live);
    let mut f = Function::new(name, sig.clone());
    f.loc = loc;
    let mut em = Emitter {
        g,
        pl,
        f,
        vals: FxHashMap::default(),
    };
    let entry = em.block(&sig.params, g.regions[g.root].args);
    em.region(
        g.root,
        entry,
        &Ctx {
            join: None,
            lp: None,
        },
    )?;
    let mut f = em.f;
    crate::canon::canonicalize(&mut f);
    Ok(f)
}

impl Emitter<'_> {
    /// A new block whose parameters (of types `tys`) receive the value
    /// outputs of argument node `args`.
    fn block(&mut self, tys: &[Type], args: Node) -> Block {
        let mut b = FunctionBuilder::new(&mut self.f);
        let blk = b.create_block();
        for (i, &t) in tys.iter().enumerate() {
            let v = b.append_block_param(blk, t);
            self.vals.insert(
                Port {
                    node: args,
                    index: i as u32,
                },
                v,
            );
        }
        blk
    }

    fn val(&self, p: Port) -> Result<Value, Unsupported> {
        self.vals.get(&p).copied().ok_or_else(|| {
            Unsupported::new(format!(
                "internal: {:?} used before it is computed",
                self.g.nodes[p.node].op
            ))
        })
    }

    /// Values of the value ports of `ps` (the trailing state is dropped).
    fn vals_of(&self, ps: &[Port]) -> Result<Vec<Value>, Unsupported> {
        ps.iter()
            .filter(|&&p| self.g.sort(p) != Sort::State)
            .map(|&p| self.val(p))
            .collect()
    }

    fn jump(&mut self, from: Block, to: Block, args: Vec<Value>) {
        FunctionBuilder::new(&mut self.f)
            .set_terminator(from, Terminator::jump(BlockCall::new(to, args)));
    }

    fn switch(&mut self, from: Block, pred: Value, keys: &[i64], targets: &[Block]) {
        let (default, cases) = targets.split_last().expect("a default arm");
        let term = Terminator::Switch {
            value: Some(pred),
            cases: keys
                .iter()
                .zip(cases)
                .map(|(&k, &b)| (k, BlockCall::new(b, Vec::new())))
                .collect(),
            default: BlockCall::new(*default, Vec::new()),
        };
        FunctionBuilder::new(&mut self.f).set_terminator(from, term);
    }

    fn region(&mut self, r: Region, mut cur: Block, ctx: &Ctx) -> Result<(), Unsupported> {
        let g = self.g;
        // Items in dependence order, ties by creation order.
        let items = std::mem::take(&mut self.pl.items[r]);
        let mut heap: BinaryHeap<Reverse<Node>> = items
            .iter()
            .copied()
            .filter(|&n| self.pl.indeg[n] == 0)
            .map(Reverse)
            .collect();
        let mut done = 0;
        while let Some(Reverse(n)) = heap.pop() {
            done += 1;
            cur = self.item(n, cur, ctx)?;
            for i in 0..self.pl.succs[n].len() {
                let s = self.pl.succs[n][i];
                self.pl.indeg[s] -= 1;
                if self.pl.indeg[s] == 0 {
                    heap.push(Reverse(s));
                }
            }
        }
        if done != items.len() {
            return Err(Unsupported::new("internal: cyclic schedule"));
        }
        match &g.regions[r].tail {
            Tail::Pending => return Err(Unsupported::new("internal: unfinished region")),
            Tail::Yield(ps) => {
                let join = ctx
                    .join
                    .ok_or_else(|| Unsupported::new("internal: yield"))?;
                let a = self.vals_of(ps)?;
                self.jump(cur, join, a);
            }
            Tail::Return(v, _) => {
                let v = v.map(|p| self.val(p)).transpose()?;
                FunctionBuilder::new(&mut self.f).set_terminator(cur, Terminator::Return(v));
            }
            Tail::Continue(ps) => {
                let (h, _) = ctx.lp.clone().ok_or_else(|| Unsupported::new("internal"))?;
                let a = self.vals_of(ps)?;
                self.jump(cur, h, a);
            }
            Tail::Break(k, ps) => {
                let (_, exits) = ctx.lp.clone().ok_or_else(|| Unsupported::new("internal"))?;
                let a = self.vals_of(ps)?;
                self.jump(cur, exits[*k as usize], a);
            }
            Tail::Switch {
                pred, keys, arms, ..
            } => {
                let p = self.val(*pred)?;
                let blocks: Vec<Block> = arms
                    .iter()
                    .map(|&a| self.block(&[], g.regions[a].args))
                    .collect();
                self.switch(cur, p, keys, &blocks);
                for (&a, &b) in arms.iter().zip(&blocks) {
                    self.region(a, b, ctx)?;
                }
            }
            Tail::Loop(t) => {
                let Op::Theta { body, exits } = &g.nodes[*t].op else {
                    return Err(Unsupported::new("internal: loop tail"));
                };
                let init = self.vals_of(&g.nodes[*t].inputs)?;
                let tys = arg_types(g, *body);
                let header = self.block(&tys, g.regions[*body].args);
                let exit_blocks: Vec<Block> = exits
                    .iter()
                    .map(|&e| {
                        let tys = arg_types(g, e);
                        self.block(&tys, g.regions[e].args)
                    })
                    .collect();
                self.jump(cur, header, init);
                let inner = Ctx {
                    join: None,
                    lp: Some((header, exit_blocks.clone())),
                };
                self.region(*body, header, &inner)?;
                for (&e, &b) in exits.iter().zip(&exit_blocks) {
                    self.region(e, b, ctx)?;
                }
            }
        }
        Ok(())
    }

    /// Emits one item into `cur`; returns the block where code continues.
    fn item(&mut self, n: Node, cur: Block, ctx: &Ctx) -> Result<Block, Unsupported> {
        let g = self.g;
        let data = &g.nodes[n];
        match &data.op {
            Op::Simple(kind) => {
                let mut kind = kind.clone();
                let mut vals = self.vals_of(&data.inputs)?.into_iter();
                let mut missing = false;
                kind.for_each_arg_mut(|v| match vals.next() {
                    Some(x) => *v = x,
                    None => missing = true,
                });
                if missing {
                    return Err(Unsupported::new("internal: operand count"));
                }
                let ty = match data.outputs.first() {
                    Some(Sort::Val(t)) => *t,
                    _ => Type::Unit,
                };
                let (_, res) =
                    FunctionBuilder::new(&mut self.f).append_inst(cur, kind, ty, data.loc);
                if let Some(v) = res {
                    self.vals.insert(Port { node: n, index: 0 }, v);
                }
                Ok(cur)
            }
            Op::Gamma { keys, arms } => {
                let p = self.val(data.inputs[0])?;
                let blocks: Vec<Block> = arms
                    .iter()
                    .map(|&a| self.block(&[], g.regions[a].args))
                    .collect();
                let tys: Vec<Type> = data
                    .outputs
                    .iter()
                    .filter_map(|s| match s {
                        Sort::Val(t) => Some(*t),
                        Sort::State => None,
                    })
                    .collect();
                let join = self.block(&tys, n);
                self.switch(cur, p, keys, &blocks);
                let inner = Ctx {
                    join: Some(join),
                    lp: ctx.lp.clone(),
                };
                for (&a, &b) in arms.iter().zip(&blocks) {
                    self.region(a, b, &inner)?;
                }
                Ok(join)
            }
            Op::Args | Op::Theta { .. } => Err(Unsupported::new("internal: not an item")),
        }
    }
}

/// The value argument types of region `r`.
fn arg_types(g: &Graph, r: Region) -> Vec<Type> {
    g.nodes[g.regions[r].args]
        .outputs
        .iter()
        .filter_map(|s| match s {
            Sort::Val(t) => Some(*t),
            Sort::State => None,
        })
        .collect()
}
