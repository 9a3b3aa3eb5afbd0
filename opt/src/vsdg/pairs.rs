//! Minimal duplication for γ-trees returning two values (Lawrence §4.2).
//!
//! After call-by-need placement every arm of a γ-tree computes its own
//! copy of each value it yields: a pure computation `A` yielded by two
//! arms is emitted twice. Tail sharing can keep one copy of `A` for all of
//! them, but only if `A` is computed *last* in each, after the arm's other
//! value (§4.1: a shared node must be the last child of every parent).
//! With two values per arm that is a choice per arm — which of its two
//! values is shared — and §4.2 shows that the smallest choice is a
//! minimum vertex cover of a bipartite *sharing graph*:
//!
//! - vertices: the leaves, i.e. the distinct computations yielded as the
//!   first value (side A) or as the second value (side B) by the arms
//!   jumping to one join; the same computation on both sides is two
//!   vertices (§4.2.2);
//! - edges: one per arm (a PDG group node with two leaf children);
//! - weights: the leaf's instruction count (§4.2.3, by the `G_w` blow-up
//!   of Fig 4.7: each vertex becomes `w` copies, each edge a complete
//!   bipartite join, so a minimum cover takes all or none of a vertex's
//!   copies).
//!
//! A maximum matching (augmenting paths) gives the cover by König's
//! construction as the report states it: `S` = the unmatched `A` vertices
//! and everything reachable from them along non-matching `A→B` edges and
//! matching `B→A` edges; `K = (S ∩ B) ∪ (A \ S)`. Interpretation (§4.2.2):
//! in each arm, a child not in the cover is computed first, privately; the
//! other (in the cover) is shared, computed last in a new block that every
//! arm sharing it jumps to with its private value as a parameter. Each
//! path still evaluates exactly what it evaluated before, so evaluation
//! counts and tests per path do not change; the static size becomes
//! (private copies) + (covered leaves), which the cover minimizes.
//!
//! Scope (what fits the emitted CFG): a join block with exactly two
//! parameters, not a loop header; arms are its predecessors that jump to
//! it unconditionally, have no parameters, and consist only of the pure,
//! non-trapping instructions computing the two yielded values, as two
//! disjoint trees whose values are used nowhere else. Other predecessors
//! are left alone. Early selection (leaves that are siblings of predicate
//! nodes, Fig 4.8) is not modelled.

use cranelift_entity::{EntitySet, SecondaryMap};
use rustc_hash::FxHashMap;

use crate::ir::{
    Block, BlockCall, Function, FunctionBuilder, Inst, InstKind, SrcLoc, Terminator, Type, Value,
};

use super::tails::{key_insts, key_ref, KeyedInst, Ref};

/// Most vertex copies in the weighted sharing graph of one join.
const MAX_COPIES: usize = 256;

/// A leaf up to renaming its own values: its instructions, and what it
/// yields.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Leaf {
    insts: Vec<KeyedInst>,
    result: Ref,
}

/// One arm: its block, and the instructions of each of its two leaves.
struct Arm {
    block: Block,
    leaves: [Vec<Inst>; 2],
    vertex: [usize; 2],
}

/// Shares, for every join with two parameters, the leaves of its arms
/// chosen by a minimum-weight vertex cover. Returns the number of shared
/// blocks made.
pub fn share_pairs(f: &mut Function, headers: &EntitySet<Block>) -> usize {
    let layout = f.layout.clone();
    let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    preds.resize(f.blocks.len());
    uses.resize(f.values.len());
    for &b in &layout {
        let data = &f.blocks[b];
        for e in data.term.successors() {
            preds[e.block].push(b);
        }
        for &i in &data.insts {
            f.inst(i).kind.for_each_arg(|v| uses[v] += 1);
        }
        data.term.for_each_arg(|v| uses[v] += 1);
    }
    let mut made = 0;
    for &j in &layout {
        super::work::tick(1);
        if j == f.entry() || headers.contains(j) || f.blocks[j].params.len() != 2 {
            continue;
        }
        let mut arms = Vec::new();
        let mut leaves: [Vec<(Leaf, usize)>; 2] = [Vec::new(), Vec::new()];
        for &p in &preds[j] {
            let Some(split) = arm(f, p, j, &uses) else {
                continue;
            };
            let mut vertex = [0; 2];
            for s in 0..2 {
                let leaf = leaf(f, &split[s], arg(f, p, s));
                let w = split[s].len();
                vertex[s] = match leaves[s].iter().position(|(l, _)| *l == leaf) {
                    Some(v) => v,
                    None => {
                        leaves[s].push((leaf, w));
                        leaves[s].len() - 1
                    }
                };
            }
            arms.push(Arm {
                block: p,
                leaves: split,
                vertex,
            });
        }
        if arms.len() < 2 {
            continue;
        }
        let weights: [Vec<usize>; 2] = [0, 1].map(|s| leaves[s].iter().map(|l| l.1).collect());
        let edges: Vec<(usize, usize)> = arms.iter().map(|a| (a.vertex[0], a.vertex[1])).collect();
        let Some(cover) = min_weight_cover(&weights, &edges) else {
            continue;
        };
        // The child each arm shares: the one in the cover; if both are,
        // the one more arms yield (so its copy is shared), then the heavier.
        let degree = |s: usize, v: usize| arms.iter().filter(|a| a.vertex[s] == v).count();
        let shared: Vec<Option<usize>> = arms
            .iter()
            .map(|a| {
                let w = |s: usize| weights[s][a.vertex[s]];
                let inc = |s: usize| cover[s][a.vertex[s]] && w(s) > 0;
                let gain = |s: usize| (degree(s, a.vertex[s]), w(s));
                match (inc(0), inc(1)) {
                    (true, true) => Some(if gain(1) > gain(0) { 1 } else { 0 }),
                    (true, false) => Some(0),
                    (false, true) => Some(1),
                    (false, false) => None,
                }
            })
            .collect();
        for (s, side) in leaves.iter().enumerate() {
            for v in 0..side.len() {
                let group: Vec<usize> = (0..arms.len())
                    .filter(|&a| shared[a] == Some(s) && arms[a].vertex[s] == v)
                    .collect();
                if group.len() >= 2 {
                    share(f, j, s, &arms, &group);
                    made += 1;
                }
            }
        }
    }
    made
}

/// Argument `s` of the jump ending arm `p`.
fn arg(f: &Function, p: Block, s: usize) -> Value {
    f.blocks[p].term.as_jump().expect("arms end in a jump").args[s]
}

/// The two leaves of arm `p` of join `j`, when `p` is an arm (see the
/// module docs): the instructions computing each of its jump's arguments.
fn arm(
    f: &Function,
    p: Block,
    j: Block,
    uses: &SecondaryMap<Value, u32>,
) -> Option<[Vec<Inst>; 2]> {
    let data = &f.blocks[p];
    let default = data.term.as_jump()?;
    if default.block != j || p == f.entry() || !data.params.is_empty() {
        return None;
    }
    let mut def: FxHashMap<Value, Inst> = FxHashMap::default();
    for &i in &data.insts {
        let d = f.inst(i);
        if d.kind.may_trap() || d.kind.has_side_effects() || d.kind.reads_memory() {
            return None;
        }
        let r = d.result?;
        // Used once: by the jump or one instruction of the same leaf.
        if uses[r] != 1 {
            return None;
        }
        def.insert(r, i);
    }
    let mut side: FxHashMap<Inst, usize> = FxHashMap::default();
    for s in 0..2 {
        let mut stack = vec![default.args[s]];
        while let Some(v) = stack.pop() {
            if let Some(&i) = def.get(&v) {
                if side.insert(i, s).is_some() {
                    return None;
                }
                f.inst(i).kind.for_each_arg(|a| stack.push(a));
            }
        }
    }
    if side.len() != data.insts.len() {
        return None;
    }
    let pick = |s: usize| -> Vec<Inst> {
        data.insts
            .iter()
            .copied()
            .filter(|i| side[i] == s)
            .collect()
    };
    Some([pick(0), pick(1)])
}

/// The key of a leaf computing `result` with `insts` (in block order).
fn leaf(f: &Function, insts: &[Inst], result: Value) -> Leaf {
    let mut local: FxHashMap<Value, u32> = FxHashMap::default();
    let insts = key_insts(f, insts, &mut local);
    Leaf {
        insts,
        result: key_ref(&local, result),
    }
}

/// Moves leaf `s` of the arms in `group` (all the same leaf) into one new
/// block, computed last: each arm jumps there with its other value.
fn share(f: &mut Function, j: Block, s: usize, arms: &[Arm], group: &[usize]) {
    let first = &arms[group[0]];
    let other_ty = f.value_type(f.blocks[j].params[1 - s]);
    let result = arg(f, first.block, s);
    let code: Vec<(InstKind, Option<Value>, Type, SrcLoc)> = first.leaves[s]
        .iter()
        .map(|&i| {
            let d = f.inst(i);
            let ty = d.result.map_or(Type::Unit, |v| f.value_type(v));
            (d.kind.clone(), d.result, ty, d.loc)
        })
        .collect();
    let mut b = FunctionBuilder::new(f);
    let blk = b.create_block();
    let param = b.append_block_param(blk, other_ty);
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    for (mut kind, old, ty, loc) in code {
        kind.for_each_arg_mut(|v| *v = map.get(v).copied().unwrap_or(*v));
        let (_, res) = b.append_inst(blk, kind, ty, loc);
        if let (Some(old), Some(new)) = (old, res) {
            map.insert(old, new);
        }
    }
    let shared = map.get(&result).copied().unwrap_or(result);
    let mut args = vec![param, param];
    args[s] = shared;
    b.set_terminator(blk, Terminator::jump(BlockCall::new(j, args)));
    for &a in group {
        let arm = &arms[a];
        let private = arg(f, arm.block, 1 - s);
        let data = &mut f.blocks[arm.block];
        data.insts.retain(|i| !arm.leaves[s].contains(i));
        data.term = Terminator::jump(BlockCall::new(blk, vec![private]));
    }
}

/// A minimum-weight vertex cover of the bipartite graph with vertex
/// weights `w[0]` (side A), `w[1]` (side B) and `edges` (A, B), through
/// the `G_w` blow-up (Fig 4.7) and König's construction (§4.2.1). `None`
/// when the blow-up exceeds [`MAX_COPIES`].
fn min_weight_cover(w: &[Vec<usize>; 2], edges: &[(usize, usize)]) -> Option<[Vec<bool>; 2]> {
    // Copies of each vertex in G_w.
    let copies = |s: usize| -> Vec<(usize, usize)> {
        w[s].iter()
            .enumerate()
            .flat_map(|(v, &n)| (0..n).map(move |_| v))
            .enumerate()
            .collect()
    };
    let (ca, cb) = (copies(0), copies(1));
    if ca.len() + cb.len() > MAX_COPIES {
        return None;
    }
    // Adjacency of G_w, A copies to B copies.
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); ca.len()];
    for &(x, va) in &ca {
        for &(y, vb) in &cb {
            if edges.contains(&(va, vb)) {
                adj[x].push(y);
            }
        }
    }
    super::work::tick((ca.len() * cb.len()) as u64);
    // Maximum matching by augmenting paths (Kuhn).
    let mut mate_b: Vec<Option<usize>> = vec![None; cb.len()];
    let mut mate_a: Vec<Option<usize>> = vec![None; ca.len()];
    for x in 0..ca.len() {
        let mut seen = vec![false; cb.len()];
        augment(x, &adj, &mut seen, &mut mate_a, &mut mate_b);
    }
    // König: S from the unmatched A copies.
    let mut in_s_a = vec![false; ca.len()];
    let mut in_s_b = vec![false; cb.len()];
    let mut stack: Vec<usize> = (0..ca.len()).filter(|&x| mate_a[x].is_none()).collect();
    for &x in &stack {
        in_s_a[x] = true;
    }
    while let Some(x) = stack.pop() {
        for &y in &adj[x] {
            if mate_a[x] != Some(y) && !in_s_b[y] {
                in_s_b[y] = true;
                if let Some(x2) = mate_b[y] {
                    if !in_s_a[x2] {
                        in_s_a[x2] = true;
                        stack.push(x2);
                    }
                }
            }
        }
    }
    // K = (S ∩ B) ∪ (A \ S); a vertex is covered when its copies are
    // (all or none of them are, since copies of one vertex are twins).
    let mut cover = [vec![false; w[0].len()], vec![false; w[1].len()]];
    for &(x, v) in &ca {
        cover[0][v] |= !in_s_a[x];
    }
    for &(y, v) in &cb {
        cover[1][v] |= in_s_b[y];
    }
    Some(cover)
}

fn augment(
    x: usize,
    adj: &[Vec<usize>],
    seen: &mut [bool],
    mate_a: &mut [Option<usize>],
    mate_b: &mut [Option<usize>],
) -> bool {
    for &y in &adj[x] {
        if seen[y] {
            continue;
        }
        seen[y] = true;
        let free = match mate_b[y] {
            None => true,
            Some(x2) => augment(x2, adj, seen, mate_a, mate_b),
        };
        if free {
            mate_b[y] = Some(x);
            mate_a[x] = Some(y);
            return true;
        }
    }
    false
}
