//! Node scheduling under register pressure: the order of one region's items.
//!
//! Lawrence ch. 6 makes node scheduling the last phase of sequentialization
//! (df-PDG → CFG): order the nodes of each net so that the values live at
//! every point fit the registers. Johnson's algorithm (§6.1, digest §4.8)
//! walks cuts from the results upwards and, where a cut is too wide,
//! raises nodes, clones stateless nodes, and only then spills. §6.4 (Figs
//! 6.5/6.6) shows that its breadth-first cuts spill a binary-tree
//! expression that a depth-first order evaluates without spilling, and
//! suggests an adaptive hybrid: breadth-first by default, depth-first under
//! register pressure. This module implements that hybrid ("Johnson-lite",
//! digest §6.1 step 6, test shape T12) on the items of one region:
//!
//! 1. **Default order**: a topological order of the region's dependence
//!    edges (values, state, uses inside γ arms and loop bodies), ties by
//!    creation order, which follows the source. Interleaving is allowed
//!    while it fits: if at most [`REGISTERS`] values are live after every
//!    item, this order is kept.
//! 2. **Depth-first under pressure** (§6.4): the stateful items, γs and
//!    loops stay in the default order (the state chain fixes it); each one
//!    pulls in its pure operands just before it, depth-first, the operand
//!    needing the most registers first (a Sethi–Ullman labelling of the
//!    DAG), so a subexpression is finished before the next one starts. The
//!    region's results come last, the same way. The depth-first order is
//!    used when it spills less than the default order (Belady's count on
//!    the straight-line order, [`Problem::spills`]), so it never spills
//!    more than the naive topological order (digest T12).
//! 3. **Clone rather than spill** (§6.1.3 node cloning, §4.8 step 2): while
//!    some point still has too many live values, a cheap stateless item
//!    whose operands all come from outside the region (constants, an add of
//!    two arguments) and whose value is live across that point unused is
//!    recomputed just before its next use instead of being held, furthest
//!    next use first. A clone never leaves its region, so it is never
//!    copied into a loop or a more shared region (§6.2 "never clone from a
//!    less-shared region into a more-shared one").
//!
//! Loop invariants demanded on every iteration were already moved to the
//! loop's preheader by placement ([`super::seq`], §5.4), so a loop body
//! never holds them. The live values counted here are the region's own
//! (values from enclosing regions pass through and are the same for every
//! order); a γ or loop counts as one item that uses what its arms use.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::analysis::adjacency::Adjacency;
use crate::ir::{BinaryOp, InstKind, UnaryOp};

use super::graph::{Graph, Node, Op, Region, Sort};
use super::seq::Placement;
use super::Unsupported;

/// The registers the scheduler keeps a region's live values within: about
/// the allocatable general registers of x86-64 (digest §6.1 step 6).
pub const REGISTERS: usize = 14;

/// Most clones one region gets (each costs one re-evaluation).
const MAX_CLONES: usize = 32;

/// One step of a region's schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Emit the item.
    Item(Node),
    /// Evaluate the (cheap, pure) item again; later uses take the clone.
    Clone(Node),
}

/// The order of the items of region `r`, with clones, keeping at most
/// `registers` of the region's values live where the dependences allow it.
pub fn schedule(
    g: &Graph,
    pl: &Placement,
    r: Region,
    registers: usize,
) -> Result<Vec<Step>, Unsupported> {
    let p = Problem::new(g, pl, r);
    let base = p.default_order()?;
    let base: Vec<Step> = base.into_iter().map(|i| Step::Item(p.items[i])).collect();
    let live0 = p.max_live(&base);
    if live0 <= registers {
        return Ok(base);
    }
    let df: Vec<Step> = p
        .depth_first(&base)
        .into_iter()
        .map(|i| Step::Item(p.items[i]))
        .collect();
    let cost = |s: &[Step]| (p.spills(s, registers), p.max_live(s));
    let mut best = if cost(&df) < cost(&base) { df } else { base };
    p.clone_under_pressure(&mut best, registers);
    Ok(best)
}

/// One value of the schedule: an item's outputs from its step (or a
/// clone's) to its last use.
struct Life {
    item: usize,
    start: usize,
    /// Its range of [`Lives::uses`].
    uses: (u32, u32),
}

/// The values of a schedule and the steps using them, flat.
struct Lives {
    lives: Vec<Life>,
    /// Steps using each value, ascending per value; `steps.len()` stands
    /// for the tail.
    uses: Vec<usize>,
}

impl Lives {
    fn uses(&self, l: &Life) -> &[usize] {
        &self.uses[l.uses.0 as usize..l.uses.1 as usize]
    }
}

/// Sentinel for "no value yet".
const NONE: usize = usize::MAX;

/// The scheduling problem of one region, items by index.
pub(super) struct Problem<'g> {
    g: &'g Graph,
    items: &'g [Node],
    /// Where the items' positions are looked up ([`Placement::slot`]).
    pl: &'g Placement,
    region: Region,
    /// Items each item depends on (any edge), possibly repeated.
    preds: Adjacency,
    /// Items whose value each item uses.
    operands: Adjacency,
    /// Items whose value the region's tail uses.
    tail: Vec<bool>,
    /// Value outputs of each item: the registers it holds.
    weight: Vec<usize>,
}

impl<'g> Problem<'g> {
    /// The items of `r` and their dependences from the placement.
    pub(super) fn new(g: &'g Graph, pl: &'g Placement, r: Region) -> Problem<'g> {
        let items = pl.items[r].as_slice();
        let n = items.len();
        let edges = &pl.edges[r];
        let mut preds = Vec::with_capacity(edges.len());
        let mut operands = Vec::with_capacity(edges.len());
        for e in edges {
            let (Some(i), Some(j)) = (pl.slot(e.def, r), pl.slot(e.user, r)) else {
                continue;
            };
            preds.push((j, i));
            if e.value {
                operands.push((j, i));
            }
        }
        let mut tail = vec![false; n];
        for m in &pl.tail_used[r] {
            if let Some(i) = pl.slot(*m, r) {
                tail[i] = true;
            }
        }
        let weight = items
            .iter()
            .map(|&m| {
                g.nodes[m]
                    .outputs
                    .iter()
                    .filter(|s| matches!(s, Sort::Val(_)))
                    .count()
            })
            .collect();
        super::work::tick(1 + n as u64);
        Problem {
            g,
            items,
            pl,
            region: r,
            preds: Adjacency::new(n, &preds),
            operands: Adjacency::new(n, &operands),
            tail,
            weight,
        }
    }

    /// Topological order of the dependences, ties by creation order.
    fn default_order(&self) -> Result<Vec<usize>, Unsupported> {
        let n = self.items.len();
        let mut indeg: Vec<usize> = (0..n).map(|j| self.preds.of(j).len()).collect();
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|j| self.preds.of(j).iter().map(move |&i| (i, j)))
            .collect();
        let succs = Adjacency::new(n, &pairs);
        let mut heap: BinaryHeap<Reverse<(Node, usize)>> = (0..n)
            .filter(|&i| indeg[i] == 0)
            .map(|i| Reverse((self.items[i], i)))
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(Reverse((_, i))) = heap.pop() {
            super::work::tick(1);
            order.push(i);
            for &j in succs.of(i) {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    heap.push(Reverse((self.items[j], j)));
                }
            }
        }
        if order.len() != n {
            return Err(Unsupported::new("internal: cyclic schedule"));
        }
        Ok(order)
    }

    fn item_of(&self, s: Step) -> usize {
        match s {
            Step::Item(n) | Step::Clone(n) => self
                .pl
                .slot(n, self.region)
                .expect("a step is an item of its region"),
        }
    }

    /// The values of a schedule and where they are used. A use reads the
    /// latest copy (the item or its last clone) before it.
    fn lives(&self, steps: &[Step]) -> Lives {
        let mut cur = vec![NONE; self.items.len()];
        let mut lives: Vec<Life> = Vec::new();
        // (value, step) in step order, grouped by value below.
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (k, &s) in steps.iter().enumerate() {
            let i = self.item_of(s);
            if let Step::Item(_) = s {
                for &j in self.operands.of(i) {
                    if cur[j] != NONE {
                        pairs.push((cur[j], k));
                    }
                }
            }
            if self.weight[i] > 0 {
                cur[i] = lives.len();
                lives.push(Life {
                    item: i,
                    start: k,
                    uses: (0, 0),
                });
            }
        }
        for (i, &c) in cur.iter().enumerate() {
            if self.tail[i] && c != NONE {
                pairs.push((c, steps.len()));
            }
        }
        let grouped = Adjacency::new(lives.len(), &pairs);
        for (l, life) in lives.iter_mut().enumerate() {
            life.uses = (grouped.start[l], grouped.start[l + 1]);
        }
        Lives {
            lives,
            uses: grouped.list,
        }
    }

    /// Values live after each step (`start ≤ k < last use`).
    fn pressure(&self, steps: &[Step], lives: &Lives) -> Vec<usize> {
        let mut diff = vec![0isize; steps.len() + 2];
        for l in &lives.lives {
            if let Some(&end) = lives.uses(l).last() {
                let w = self.weight[l.item] as isize;
                diff[l.start] += w;
                diff[end] -= w;
            }
        }
        let mut live = 0isize;
        diff[..steps.len()]
            .iter()
            .map(|d| {
                live += d;
                live as usize
            })
            .collect()
    }

    /// The most of the region's values live after any step. Only the last
    /// use of each value matters, so no use lists are built.
    pub(super) fn max_live(&self, steps: &[Step]) -> usize {
        let mut cur = vec![NONE; self.items.len()];
        // Per value: its item, first step and last use (NONE: unused).
        let mut vals: Vec<(usize, usize, usize)> = Vec::new();
        for (k, &s) in steps.iter().enumerate() {
            let i = self.item_of(s);
            if let Step::Item(_) = s {
                for &j in self.operands.of(i) {
                    if cur[j] != NONE {
                        vals[cur[j]].2 = k;
                    }
                }
            }
            if self.weight[i] > 0 {
                cur[i] = vals.len();
                vals.push((i, k, NONE));
            }
        }
        for (i, &c) in cur.iter().enumerate() {
            if self.tail[i] && c != NONE {
                vals[c].2 = steps.len();
            }
        }
        let mut diff = vec![0isize; steps.len() + 2];
        for &(i, start, end) in &vals {
            if end != NONE {
                let w = self.weight[i] as isize;
                diff[start] += w;
                diff[end] -= w;
            }
        }
        let mut live = 0isize;
        let mut most = 0;
        for d in &diff[..steps.len()] {
            live += d;
            most = most.max(live as usize);
        }
        most
    }

    /// Values spilled when the straight-line schedule runs with `regs`
    /// registers and Belady's rule (evict the value used furthest ahead;
    /// reload it at its next use). Each eviction counts its registers once.
    pub(super) fn spills(&self, steps: &[Step], regs: usize) -> usize {
        let lives = self.lives(steps);
        let len = steps.len();
        let mut used_at: Vec<Vec<usize>> = vec![Vec::new(); len + 1];
        let mut def_at: Vec<Option<usize>> = vec![None; len + 1];
        for (l, life) in lives.lives.iter().enumerate() {
            for &u in lives.uses(life) {
                used_at[u].push(l);
            }
            if life.uses.0 != life.uses.1 {
                def_at[life.start] = Some(l);
            }
        }
        let uses = |l: usize| lives.uses(&lives.lives[l]);
        let item = |l: usize| lives.lives[l].item;
        let mut next = vec![0usize; lives.lives.len()];
        let mut in_reg: Vec<usize> = Vec::new();
        let mut held = 0;
        let mut spills = 0;
        for k in 0..=len {
            super::work::tick(1);
            for &l in &used_at[k] {
                if !in_reg.contains(&l) {
                    in_reg.push(l);
                    held += self.weight[item(l)];
                }
                while next[l] < uses(l).len() && uses(l)[next[l]] <= k {
                    next[l] += 1;
                }
            }
            in_reg.retain(|&l| {
                let alive = next[l] < uses(l).len();
                if !alive {
                    held -= self.weight[item(l)];
                }
                alive
            });
            if let Some(l) = def_at[k] {
                in_reg.push(l);
                held += self.weight[item(l)];
            }
            while held > regs {
                let (at, _) = in_reg
                    .iter()
                    .enumerate()
                    .max_by_key(|&(_, &l)| uses(l)[next[l]])
                    .expect("a value held");
                let l = in_reg.swap_remove(at);
                let w = self.weight[item(l)];
                held -= w;
                spills += w;
            }
        }
        spills
    }

    /// Registers each item's subexpression needs (Sethi–Ullman, on the
    /// DAG: shared operands are counted in each user).
    fn needs(&self, base: &[usize]) -> Vec<usize> {
        let mut need = vec![0usize; self.items.len()];
        for &i in base {
            let mut ns: Vec<usize> = self.operands.of(i).iter().map(|&j| need[j]).collect();
            ns.sort_unstable_by(|a, b| b.cmp(a));
            let operands = ns.iter().enumerate().map(|(k, &x)| x + k).max();
            need[i] = operands.unwrap_or(0).max(self.weight[i]).max(1);
        }
        need
    }

    /// The depth-first order of §6.4: state-ordered items in the default
    /// order, each preceded by its pure operands, biggest need first.
    fn depth_first(&self, base: &[Step]) -> Vec<usize> {
        let base: Vec<usize> = base.iter().map(|&s| self.item_of(s)).collect();
        let n = self.items.len();
        let need = self.needs(&base);
        let mut pos = vec![0; n];
        for (k, &i) in base.iter().enumerate() {
            pos[i] = k;
        }
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut visit = |root: usize, order: &mut Vec<usize>| {
            if done[root] {
                return;
            }
            done[root] = true;
            let mut stack = vec![(root, self.sorted_preds(root, &need, &pos), 0)];
            while let Some((i, ps, k)) = stack.last_mut() {
                super::work::tick(1);
                if let Some(&j) = ps.get(*k) {
                    *k += 1;
                    if !done[j] {
                        done[j] = true;
                        let ps = self.sorted_preds(j, &need, &pos);
                        stack.push((j, ps, 0));
                    }
                } else {
                    order.push(*i);
                    stack.pop();
                }
            }
        };
        for &i in &base {
            if !self.is_pure(i) {
                visit(i, &mut order);
            }
        }
        let mut results: Vec<usize> = (0..n).filter(|&i| self.tail[i]).collect();
        results.sort_by_key(|&i| (Reverse(need[i]), pos[i]));
        for i in results {
            visit(i, &mut order);
        }
        for &i in &base {
            visit(i, &mut order);
        }
        order
    }

    fn sorted_preds(&self, i: usize, need: &[usize], pos: &[usize]) -> Vec<usize> {
        let mut ps = self.preds.of(i).to_vec();
        ps.sort_by_key(|&j| (Reverse(need[j]), pos[j]));
        ps.dedup();
        ps
    }

    fn is_pure(&self, i: usize) -> bool {
        let d = &self.g.nodes[self.items[i]];
        matches!(d.op, Op::Simple(_)) && !d.is_stateful()
    }

    /// Whether item `i` is cheap, pure and uses no value of the region, so
    /// evaluating it again costs one cheap instruction and lengthens no
    /// other live range.
    fn clonable(&self, i: usize) -> bool {
        let d = &self.g.nodes[self.items[i]];
        let cheap = match &d.op {
            Op::Simple(k) => matches!(
                k,
                InstKind::IConst(_)
                    | InstKind::FConst(_)
                    | InstKind::BConst(_)
                    | InstKind::Unary(UnaryOp::INeg | UnaryOp::BNot, _)
                    | InstKind::Binary(
                        BinaryOp::IAdd
                            | BinaryOp::ISub
                            | BinaryOp::IAnd
                            | BinaryOp::IOr
                            | BinaryOp::IXor
                            | BinaryOp::IShl
                            | BinaryOp::IShr
                            | BinaryOp::IMin
                            | BinaryOp::IMax
                            | BinaryOp::ICmp(_)
                            | BinaryOp::BCmp(_),
                        ..
                    )
            ),
            _ => false,
        };
        cheap && self.is_pure(i) && self.preds.of(i).is_empty() && self.weight[i] == 1
    }

    /// Johnson's step (2), node cloning: at the first point with more than
    /// `regs` live values, a clonable value live across it unused is
    /// evaluated again just before its next use (or moved there when it
    /// has no earlier use), furthest next use first.
    fn clone_under_pressure(&self, steps: &mut Vec<Step>, regs: usize) {
        for _ in 0..MAX_CLONES {
            let lives = self.lives(steps);
            let live = self.pressure(steps, &lives);
            let Some(k) = live.iter().position(|&l| l > regs) else {
                return;
            };
            let best = lives
                .lives
                .iter()
                .filter(|l| l.start < k && self.clonable(l.item))
                .filter_map(|l| {
                    let uses = lives.uses(l);
                    let next = uses.iter().copied().find(|&u| u > k)?;
                    (!uses.contains(&k)).then_some((next, l))
                })
                .max_by_key(|&(next, l)| (next, Reverse(l.start)));
            let Some((next, life)) = best else {
                return;
            };
            let node = self.items[life.item];
            if lives.uses(life).iter().any(|&u| u < k) {
                steps.insert(next, Step::Clone(node));
            } else {
                // Unused before the clone point: just evaluate it later.
                let s = steps.remove(life.start);
                steps.insert(next - 1, s);
            }
        }
    }
}
