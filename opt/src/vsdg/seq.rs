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
//!   ancestor in the region tree — and, when its uses there all lie in
//!   mutually exclusive arms of one branch, a copy sinks into each arm
//!   that needs it ([`sink`], at most a few copies). So a value needed by
//!   one arm only is computed in that arm (partial dead code elimination,
//!   digest T5), a value needed on exclusive paths is computed on exactly
//!   those (the duplicating answer to Fig 4.1/4.10, digest T1/T2), and a
//!   value needed by two independent branches is computed once before
//!   them. Each copy is emitted once in its region, so no path evaluates a
//!   node twice. Pure nodes never trap (trapping ones are stateful), so
//!   the remaining hoisting above a branch only speculates a cheap total
//!   computation (Table 3.1's call-by-value column for the independent
//!   case; γ-ordering, §4.4, would remove it).
//! - **Loop invariants (§5.4, digest §6.3 and T8).** A pure node inside a
//!   loop body whose operands are all visible outside the loop moves to
//!   the loop's preheader: evaluated once instead of once per iteration.
//!   When the body needs it only on some paths (always the case behind a
//!   `while` test) this speculates it, which the report allows for finite,
//!   non-trapping work (§2.7.2 fairness) and the digest accepts for cheap
//!   pure nodes; trapping nodes are stateful and never move.
//! - **Scheduling.** Within a region, nodes are listed in a topological
//!   order of their dependences (values, state, and the uses made inside γ
//!   arms and loop bodies, and by region tails): creation order, which
//!   follows the source, while the region's live values fit the registers,
//!   depth-first with cheap clones under pressure ([`super::sched`], ch. 6).
//! - **Emission (digest §6.2).** A γ becomes a branch to one block per arm
//!   and a join block whose parameters are the γ's outputs; a loop becomes
//!   a header block (parameters: the loop-carried values) and one block per
//!   exit; the exit block of a single-exit loop is where the code of its
//!   region continues, like a γ's join. Blocks are laid out in the order
//!   code starts in them: a γ's arms (each with its nested code) before its
//!   join, a loop's body before its exits, which is the frontend's layout
//!   of structured code and keeps each loop body contiguous after its
//!   header. The result is made canonical (`canon`) for the passes after
//!   it.

use cranelift_entity::{EntityRef, EntitySet, SecondaryMap};
use rustc_hash::FxHashMap;

use crate::ir::{
    Block, BlockCall, Function, FunctionBuilder, Signature, SrcLoc, Terminator, Type, Value,
};

use super::dne::{liveness, Liveness};
use super::graph::{Graph, Node, Op, Owner, Port, Region, Sort, Tail};
use super::sched::{Step, REGISTERS};
use super::Unsupported;
use crate::analysis::adjacency::Adjacency;

/// Most static copies of one pure node that sinking into exclusive arms
/// makes, counting the copies in regions lifted from one source block as
/// one ([`super::graph::RegionData::source`]: tail sharing merges them).
const MAX_COPIES: usize = 4;

/// Most copies of one pure node before that merging (bounds the work).
const MAX_RAW_COPIES: usize = 32;

/// The static copies `at` becomes once tail sharing has merged the copies
/// lifted from one source block.
fn static_copies(g: &Graph, at: &[Region]) -> usize {
    let mut sources: Vec<Option<Block>> = Vec::with_capacity(at.len());
    let mut unknown = 0;
    for &r in at {
        match g.regions[r].source {
            Some(b) if !sources.contains(&Some(b)) => sources.push(Some(b)),
            Some(_) => {}
            None => unknown += 1,
        }
    }
    sources.len() + unknown
}

/// Where each live node is evaluated.
///
/// Stored flat, without a vector or hash entry per node, because the
/// round trip's fixed cost on small functions is mostly allocation (issue
/// 11's per-function compile-time target).
pub struct Placement {
    /// Per live node, its range of [`Placement::regions`]: the regions
    /// where it is evaluated (one for pinned nodes; for pure nodes one per
    /// exclusive arm that needs them), ascending.
    copies: SecondaryMap<Node, (u32, u32)>,
    /// The regions of every node's copies, node after node.
    regions: Vec<Region>,
    /// Parallel to `regions`: each copy's position in its region's
    /// [`Placement::items`] (`u32::MAX` for tails, which are no items).
    slots: Vec<u32>,
    /// The nodes listed in each region (θ-nodes and argument nodes excluded).
    pub items: SecondaryMap<Region, Vec<Node>>,
    /// Dependence edges between the items of each region.
    pub(super) edges: SecondaryMap<Region, Vec<Edge>>,
    /// Items of each region whose value the region's tail (or a region of
    /// the tail: switch arms, a loop ending the region) uses: live to its
    /// end. May repeat an item.
    pub(super) tail_used: SecondaryMap<Region, Vec<Node>>,
}

/// A dependence edge in one region: item `user` (or a region inside it)
/// uses item `def`.
#[derive(Copy, Clone, Debug)]
pub(super) struct Edge {
    /// The item used.
    pub(super) def: Node,
    /// The item using it.
    pub(super) user: Node,
    /// Whether a *value* of `def` is used (state uses only order, they hold
    /// no register).
    pub(super) value: bool,
}

impl Placement {
    /// The regions where `n` is evaluated, ascending (empty for a dead node).
    pub fn copies(&self, n: Node) -> &[Region] {
        let (start, len) = self.copies[n];
        &self.regions[start as usize..(start + len) as usize]
    }

    /// The position of `n` in the items of region `r`, if it is one of them.
    pub(super) fn slot(&self, n: Node, r: Region) -> Option<usize> {
        let (start, len) = *self.copies.get(n)?;
        (start..start + len)
            .find(|&k| self.regions[k as usize] == r)
            .map(|k| self.slots[k as usize])
            .filter(|&s| s != u32::MAX)
            .map(|s| s as usize)
    }
}

/// Whether a node is placed freely (pure) rather than pinned.
fn is_pure(g: &Graph, n: Node) -> bool {
    let d = &g.nodes[n];
    matches!(d.op, Op::Simple(_)) && !d.is_stateful()
}

/// Whether `n` is not listed among its region's items: an argument node,
/// or a loop that ends its region ([`Tail::Loop`]).
fn is_tail(g: &Graph, n: Node) -> bool {
    let d = &g.nodes[n];
    match d.op {
        Op::Args => true,
        Op::Theta { .. } => !d.is_inline_theta(),
        _ => false,
    }
}

/// Live nodes, operands before users.
fn topo(g: &Graph, live: &Liveness) -> Vec<Node> {
    let mut order = Vec::with_capacity(g.nodes.len());
    let mut seen = cranelift_entity::EntitySet::<Node>::with_capacity(g.nodes.len());
    let mut stack: Vec<(Node, usize)> = Vec::new();
    for start in g.nodes.keys() {
        if !live.nodes.contains(start) || !seen.insert(start) {
            continue;
        }
        stack.push((start, 0));
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

/// The child of `r` that contains `u` (a region strictly inside `r`).
fn child_of(g: &Graph, r: Region, mut u: Region) -> Region {
    super::work::tick(1 + g.regions[u].depth.saturating_sub(g.regions[r].depth) as u64);
    while g.regions[u].parent != Some(r) {
        u = g.regions[u].parent.expect("u is inside r");
    }
    u
}

/// Call-by-need placement of a pure node used in `uses` whose innermost
/// common region is `r`: when every use lies in mutually exclusive arms
/// of one branch (or exits of one loop), a copy goes into each arm that
/// needs it, recursively, so no path evaluates the node unless it needs
/// it, and none evaluates it twice (Lawrence §3.1, Table 3.1's
/// call-by-need column; digest §6.5 T1, T5). Otherwise the node stays in
/// `r`, before the branches.
fn sink(g: &Graph, r: Region, uses: &[Region], out: &mut Vec<Region>) {
    super::work::tick(1 + uses.len() as u64);
    if uses.contains(&r) {
        out.push(r);
        return;
    }
    let mut groups: Vec<(Region, Vec<Region>)> = Vec::new();
    for &u in uses {
        let c = child_of(g, r, u);
        match groups.iter_mut().find(|(k, _)| *k == c) {
            Some((_, us)) => us.push(u),
            None => groups.push((c, vec![u])),
        }
    }
    let owner = |c: Region| g.regions[c].owner;
    let exclusive = groups
        .iter()
        .all(|&(c, _)| match (owner(groups[0].0), owner(c)) {
            (Owner::Arm(a, _), Owner::Arm(b, _)) => a == b,
            (Owner::TailArm(..), Owner::TailArm(..)) => true,
            (Owner::Exit(a, _), Owner::Exit(b, _)) => a == b,
            _ => false,
        });
    if !exclusive || groups.len() == 1 {
        out.push(r);
        return;
    }
    // Sink into each arm that needs the node. When every arm of the branch
    // needs it unconditionally (directly in the arm's own region), each
    // path evaluates it exactly once either way: one copy before the branch
    // is smaller and keeps the operands' live ranges from crossing it.
    let arity = match owner(groups[0].0) {
        Owner::Arm(gm, _) | Owner::Exit(gm, _) => g.arms(gm).len(),
        Owner::TailArm(sw, _) => match &g.regions[sw].tail {
            Tail::Switch { arms, .. } => arms.len(),
            _ => 0,
        },
        _ => 0,
    };
    let start = out.len();
    let mut everywhere = groups.len() == arity;
    for (c, us) in groups {
        let l = us
            .iter()
            .copied()
            .reduce(|a, b| g.lca(a, b))
            .expect("a use");
        let at = out.len();
        sink(g, l, &us, out);
        everywhere &= out.len() == at + 1 && out[at] == c;
    }
    if everywhere {
        out.truncate(start);
        out.push(r);
    }
}

/// The innermost loop whose body contains region `r`.
fn enclosing_loop(g: &Graph, mut r: Region) -> Option<Node> {
    loop {
        if let Owner::Body(t) = g.regions[r].owner {
            return Some(t);
        }
        r = g.regions[r].parent?;
    }
}

/// A user of a node: another node, or the tail of a region.
#[derive(Copy, Clone)]
enum User {
    Node(Node),
    Tail(Region),
}

/// The users of every live node, by node index: node users in
/// topological order, then region tails.
fn users(g: &Graph, order: &[Node], live_regions: &[Region]) -> Adjacency<User> {
    let mut pairs = Vec::with_capacity(order.len() * 2);
    for &u in order {
        for p in &g.nodes[u].inputs {
            pairs.push((p.node.index(), User::Node(u)));
        }
    }
    for &r in live_regions {
        g.regions[r]
            .tail
            .for_each_use(|p| pairs.push((p.node.index(), User::Tail(r))));
    }
    Adjacency::new(g.nodes.len(), &pairs)
}

/// Computes where every live node is evaluated and the order constraints
/// inside each region.
pub fn place(g: &Graph, live: &Liveness) -> Placement {
    let order = topo(g, live);
    let live_regions: Vec<Region> = g
        .regions
        .keys()
        .filter(|&r| live.regions.contains(r))
        .collect();
    let users = users(g, &order, &live_regions);
    let mut pl = Placement {
        copies: SecondaryMap::new(),
        regions: Vec::with_capacity(order.len()),
        slots: Vec::new(),
        items: SecondaryMap::new(),
        edges: SecondaryMap::new(),
        tail_used: SecondaryMap::new(),
    };
    pl.copies.resize(g.nodes.len());
    pl.items.resize(g.regions.len());
    pl.edges.resize(g.regions.len());
    pl.tail_used.resize(g.regions.len());
    let mut uses: Vec<Region> = Vec::new();
    let mut at: Vec<Region> = Vec::new();
    for &n in order.iter().rev() {
        at.clear();
        if !is_pure(g, n) {
            at.push(g.nodes[n].region);
        } else {
            uses.clear();
            for u in users.of(n.index()) {
                match *u {
                    User::Node(u) => uses.extend_from_slice(pl.copies(u)),
                    User::Tail(r) => uses.push(r),
                }
            }
            let scope = g.nodes[n].scope;
            let lca = uses
                .iter()
                .copied()
                .reduce(|a, b| g.lca(a, b))
                .unwrap_or(scope);
            sink(g, lca, &uses, &mut at);
            if at.len() > MAX_RAW_COPIES || static_copies(g, &at) > MAX_COPIES {
                at.clear();
                at.push(lca);
            }
            // Loop-invariant code motion out of loop bodies.
            let scope_depth = g.regions[scope].depth;
            for r in &mut at {
                while let Some(t) = enclosing_loop(g, *r) {
                    let outer = g.nodes[t].region;
                    if scope_depth > g.regions[outer].depth {
                        break;
                    }
                    *r = outer;
                }
            }
            at.sort();
            at.dedup();
        }
        pl.copies[n] = (pl.regions.len() as u32, at.len() as u32);
        pl.regions.extend_from_slice(&at);
    }
    pl.slots = vec![u32::MAX; pl.regions.len()];
    for &n in &order {
        if is_tail(g, n) {
            continue;
        }
        let (start, len) = pl.copies[n];
        for k in start..start + len {
            let r = pl.regions[k as usize];
            pl.slots[k as usize] = pl.items[r].len() as u32;
            pl.items[r].push(n);
        }
    }
    // Dependences between items of one region: node users, then the
    // region tails (a value an arm yields must be computed before the γ).
    for &u in &order {
        if matches!(g.nodes[u].op, Op::Args) {
            continue;
        }
        let user = (!is_tail(g, u)).then_some(u);
        let (start, len) = pl.copies[u];
        for k in start..start + len {
            let ru = pl.regions[k as usize];
            for &p in &g.nodes[u].inputs {
                depend(g, &mut pl, p, ru, user);
            }
        }
    }
    for &r in &live_regions {
        g.regions[r]
            .tail
            .for_each_use(|p| depend(g, &mut pl, p, r, None));
    }
    pl
}

/// Records that `user` (a node in region `ru`, or the tail of `ru` when
/// `None`) uses port `p`: an order edge from `p`'s item to the item of
/// `p`'s region that contains the use, and the value use for the
/// scheduler's liveness ([`super::sched`]).
fn depend(g: &Graph, pl: &mut Placement, p: Port, ru: Region, user: Option<Node>) {
    let n = p.node;
    if matches!(g.nodes[n].op, Op::Args) {
        return;
    }
    // The copy of `n` whose region encloses this use.
    let Some(&rn) = pl.copies(n).iter().find(|&&c| g.is_within(ru, c)) else {
        return;
    };
    // The item of region `rn` that contains this use: the user itself, or
    // the γ or loop item whose arm, body or exit holds it. A tail needs no
    // edge: it comes last.
    let item = if ru == rn {
        user
    } else {
        match g.regions[child_of(g, rn, ru)].owner {
            Owner::Arm(gm, _) => Some(gm),
            Owner::Body(t) | Owner::Exit(t, _) if g.nodes[t].is_inline_theta() => Some(t),
            _ => None,
        }
    };
    let value = g.sort(p) != Sort::State;
    match item {
        Some(item) => pl.edges[rn].push(Edge {
            def: n,
            user: item,
            value,
        }),
        None if value => pl.tail_used[rn].push(n),
        None => {}
    }
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
    /// The loop header blocks emitted.
    headers: EntitySet<Block>,
    /// Registers the scheduler fits each region's live values in.
    registers: usize,
    /// The layout: each block in the order code starts in it.
    order: Vec<Block>,
}

/// Sequentializes `g` into a new function with the given name, signature
/// and location. The result is in canonical form.
pub fn sequentialize(
    g: &Graph,
    name: &str,
    sig: &Signature,
    loc: SrcLoc,
) -> Result<Function, Unsupported> {
    sequentialize_with(g, name, sig, loc, REGISTERS)
}

/// [`sequentialize`], scheduling each region for `registers` registers
/// ([`super::sched`]; tests use small numbers to provoke pressure).
pub fn sequentialize_with(
    g: &Graph,
    name: &str,
    sig: &Signature,
    loc: SrcLoc,
    registers: usize,
) -> Result<Function, Unsupported> {
    let live = liveness(g);
    let pl = place(g, &live);
    let mut f = Function::new(name, sig.clone());
    f.loc = loc;
    // About one instruction and value per live node.
    f.insts.reserve(pl.regions.len());
    f.values.reserve(pl.regions.len());
    let mut em = Emitter {
        g,
        pl,
        f,
        vals: FxHashMap::with_capacity_and_hasher(g.nodes.len(), Default::default()),
        headers: EntitySet::new(),
        registers,
        order: Vec::new(),
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
    debug_assert_eq!(em.order.len(), f.blocks.len(), "every block laid out once");
    f.layout = em.order;
    super::tails::share_tails(&mut f, &em.headers);
    crate::canon::canonicalize(&mut f);
    Ok(f)
}

impl Emitter<'_> {
    /// A new block whose parameters (of types `tys`) receive the value
    /// outputs of argument node `args`. It enters the layout when code
    /// starts in it ([`Emitter::start`]).
    fn block(&mut self, tys: &[Type], args: Node) -> Block {
        let mut b = FunctionBuilder::new(&mut self.f);
        let blk = b.create_block();
        b.func.layout.pop();
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

    /// Lays out `b` next: code starts in it. A γ's arms come before its
    /// join and a loop's body before its exits, in source order, so the
    /// code generators see each loop body contiguous after its header and
    /// the join after the arms, as the frontend lays out structured code.
    fn start(&mut self, b: Block) -> Block {
        self.order.push(b);
        b
    }

    fn region(&mut self, r: Region, cur: Block, ctx: &Ctx) -> Result<(), Unsupported> {
        let g = self.g;
        let mut cur = self.start(cur);
        // Items in dependence order, under register pressure (sched.rs).
        for step in super::sched::schedule(g, &self.pl, r, self.registers)? {
            super::work::tick(1);
            let (Step::Item(n) | Step::Clone(n)) = step;
            cur = self.item(n, cur, ctx)?;
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
                self.headers.insert(header);
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
                let mut ports = data.inputs.iter().filter(|&&p| g.sort(p) != Sort::State);
                let mut failed = None;
                kind.for_each_arg_mut(|v| match ports.next().map(|&p| self.val(p)) {
                    Some(Ok(x)) => *v = x,
                    Some(Err(e)) => failed = Some(e),
                    None => failed = Some(Unsupported::new("internal: operand count")),
                });
                if let Some(e) = failed {
                    return Err(e);
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
                let tys = val_types(&data.outputs);
                let join = self.block(&tys, n);
                self.switch(cur, p, keys, &blocks);
                let inner = Ctx {
                    join: Some(join),
                    lp: ctx.lp.clone(),
                };
                for (&a, &b) in arms.iter().zip(&blocks) {
                    self.region(a, b, &inner)?;
                }
                Ok(self.start(join))
            }
            Op::Theta { body, exits } if data.is_inline_theta() => {
                // A header block, the body, then either the exit block of a
                // single-exit loop or one block per exit region whose code
                // jumps to a join; the exit or the join (parameters: the
                // θ's value outputs) is where the region's code continues.
                let init = self.vals_of(&data.inputs)?;
                let header = self.block(&arg_types(g, *body), g.regions[*body].args);
                self.headers.insert(header);
                let tys = val_types(&data.outputs);
                let join = self.block(&tys, n);
                let exit_blocks: Vec<Block> = if exits.is_empty() {
                    vec![join]
                } else {
                    exits
                        .iter()
                        .map(|&e| self.block(&arg_types(g, e), g.regions[e].args))
                        .collect()
                };
                self.jump(cur, header, init);
                let inner = Ctx {
                    join: None,
                    lp: Some((header, exit_blocks.clone())),
                };
                self.region(*body, header, &inner)?;
                let outer = Ctx {
                    join: Some(join),
                    lp: ctx.lp.clone(),
                };
                for (&e, &b) in exits.iter().zip(&exit_blocks) {
                    self.region(e, b, &outer)?;
                }
                Ok(self.start(join))
            }
            Op::Args | Op::Theta { .. } => Err(Unsupported::new("internal: not an item")),
        }
    }
}

/// The value argument types of region `r`.
fn arg_types(g: &Graph, r: Region) -> Vec<Type> {
    val_types(&g.nodes[g.regions[r].args].outputs)
}

/// The types of the value ports among `ports` (state ports have none).
fn val_types(ports: &[Sort]) -> Vec<Type> {
    ports
        .iter()
        .filter_map(|s| match s {
            Sort::Val(t) => Some(*t),
            Sort::State => None,
        })
        .collect()
}
