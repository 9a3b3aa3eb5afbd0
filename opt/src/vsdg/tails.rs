//! Tail sharing of the sequentialized code (cross-jumping).
//!
//! The lifter unfolds the VSDG's regions into a tree: a block reached on
//! two exclusive paths (a shared tail of short-circuit code, the copies of
//! a later branch made by γ-ordering) is lifted once per path, so every
//! region is emitted once and the emitted code is duplication-free by
//! construction — the greedy, always-successful answer to PDG
//! sequentialization's duplication-freedom problem (Lawrence §4.1: copy
//! whatever is shared by parents that order it differently). What that
//! gives up is the report's *tail sharing*: a computation whose result
//! goes straight into a γ's result register can be shared by every path
//! that ends that way (tail nodes §3.2.2, γ-coalescing with labelled
//! gating conditions `Λ^r` §3.4.2, tail-sharing regions §6.2.2; digest
//! §6.2: memoizing emission on `(node, continuation)` "is the tail-sharing
//! merge, i.e. cross-jumping for free").
//!
//! This pass recovers it on the emitted CFG: two blocks whose instructions
//! and terminator are the same — up to renaming the values each defines —
//! and that read the same outside values are the same continuation, so one
//! of them goes and its predecessors jump to the other. Merging can make
//! the predecessors the same in turn, so the pass works backwards from the
//! merged blocks with a worklist; each block is re-keyed only when one of
//! its successors was merged, which keeps it linear in practice. In the
//! `||` shape (digest T4) the two copies of `A` become one; each path runs
//! the same instructions as before, so no evaluation count changes.
//!
//! Before merging, [`super::pairs`] shares one of the two values of the
//! arms of two-value γ-trees, chosen by a minimum vertex cover (§4.2).
//!
//! Guards: the entry block, loop headers and blocks jumping to a loop
//! header are never merged (merging a latch with a preheader would enter
//! the loop other than at its header), and neither is a block whose values
//! are used outside it.

use cranelift_entity::{EntitySet, SecondaryMap};
use rustc_hash::FxHashMap;

use crate::ir::{Block, Function, Inst, InstKind, SrcLoc, Terminator, Type, Value};

use super::build::template;

/// An operand in a key: a value the keyed code defines (by position) or
/// one from outside.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum Ref {
    Local(u32),
    Outer(Value),
}

/// An instruction up to renaming the values its code defines: template,
/// operands, result type, location.
pub(super) type KeyedInst = (InstKind, Vec<Ref>, Option<Type>, SrcLoc);

/// A block up to renaming its own values.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Key {
    params: Vec<Type>,
    insts: Vec<KeyedInst>,
    scrutinee: Option<Ref>,
    edges: Vec<(Option<i64>, Block, Vec<Ref>)>,
    ret: Option<Option<Ref>>,
}

/// Merges blocks that are the same continuation; `headers` are the loop
/// headers of `f`. Returns how many blocks were merged away (they are left
/// unreachable, for `canon` to remove).
pub fn share_tails(f: &mut Function, headers: &EntitySet<Block>) -> usize {
    let entry = f.entry();
    thread_forwarders(f, headers, &leaky_blocks(f));
    super::pairs::share_pairs(f, headers);
    let layout = f.layout.clone();
    let leaks = leaky_blocks(f);
    let mut preds: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
    preds.resize(f.blocks.len());
    for &b in &layout {
        for e in f.blocks[b].term.successors() {
            preds[e.block].push(b);
        }
    }
    let mergeable = |f: &Function, b: Block| {
        b != entry
            && !headers.contains(b)
            && !leaks.contains(b)
            && f.blocks[b]
                .term
                .successors()
                .all(|e| !headers.contains(e.block))
    };
    let mut gone: EntitySet<Block> = EntitySet::new();
    let mut table: FxHashMap<Key, Block> = FxHashMap::default();
    let mut work: Vec<Block> = layout.iter().rev().copied().collect();
    let mut merged = 0;
    while let Some(b) = work.pop() {
        super::work::tick(1);
        if gone.contains(b) || !mergeable(f, b) {
            continue;
        }
        let k = key(f, b);
        let into = match table.get(&k) {
            Some(&x) if x != b && !gone.contains(x) && key(f, x) == k => x,
            _ => {
                table.insert(k, b);
                continue;
            }
        };
        // `b` is the same continuation as `into`: its predecessors jump
        // there instead, and are re-keyed.
        gone.insert(b);
        merged += 1;
        for p in std::mem::take(&mut preds[b]) {
            for e in f.blocks[p].term.successors_mut() {
                if e.block == b {
                    e.block = into;
                }
            }
            preds[into].push(p);
            work.push(p);
        }
    }
    merged
}

/// The blocks some of whose values are used in another block.
fn leaky_blocks(f: &Function) -> EntitySet<Block> {
    let layout = &f.layout;
    let mut def: SecondaryMap<Value, Option<Block>> = SecondaryMap::new();
    def.resize(f.values.len());
    for &b in layout {
        for &p in &f.blocks[b].params {
            def[p] = Some(b);
        }
        for &i in &f.blocks[b].insts {
            if let Some(r) = f.inst(i).result {
                def[r] = Some(b);
            }
        }
    }
    let mut leaks: EntitySet<Block> = EntitySet::new();
    for &b in layout {
        let data = &f.blocks[b];
        let mut note = |v: Value| {
            if let Some(d) = def[v] {
                if d != b {
                    leaks.insert(d);
                }
            }
        };
        for &i in &data.insts {
            f.inst(i).kind.for_each_arg(&mut note);
        }
        data.term.for_each_arg(&mut note);
    }
    leaks
}

/// γ-coalescing (Lawrence §3.4.2): the join of a γ nested in an arm of
/// another, when it only passes its parameters on to the outer join, is
/// the outer join with its result registers renamed; edges to it go to the
/// outer join directly, so the arms of both γs end in the same
/// continuation and [`share_tails`] can merge them. A forwarder here is a
/// block other than the entry or a loop header, with no instructions,
/// whose values are used only in its own jump, and that does not jump to
/// a loop header.
fn thread_forwarders(f: &mut Function, headers: &EntitySet<Block>, leaks: &EntitySet<Block>) {
    let entry = f.entry();
    let forward = |f: &Function, t: Block, args: &[Value]| -> Option<(Block, Vec<Value>)> {
        let data = &f.blocks[t];
        if t == entry || headers.contains(t) || leaks.contains(t) || !data.insts.is_empty() {
            return None;
        }
        let default = data.term.as_jump()?;
        if headers.contains(default.block) || default.block == t {
            return None;
        }
        let map = |v: Value| match data.params.iter().position(|&p| p == v) {
            Some(i) => args[i],
            None => v,
        };
        Some((
            default.block,
            default.args.iter().map(|&v| map(v)).collect(),
        ))
    };
    let layout = f.layout.clone();
    for &b in &layout {
        let n = f.blocks[b].term.successors().count();
        for k in 0..n {
            let e = f.blocks[b].term.successors().nth(k).expect("edge").clone();
            let (mut t, mut args) = (e.block, e.args);
            let mut hops = 0;
            while let Some(next) = forward(f, t, &args).filter(|_| hops < layout.len()) {
                (t, args) = next;
                hops += 1;
            }
            super::work::tick(1 + hops as u64);
            if hops > 0 {
                let e = f.blocks[b].term.successors_mut().nth(k).expect("edge");
                e.block = t;
                e.args = args;
            }
        }
    }
}

/// The operand `v` under the numbering `local` of the keyed code's own
/// values.
pub(super) fn key_ref(local: &FxHashMap<Value, u32>, v: Value) -> Ref {
    match local.get(&v) {
        Some(&n) => Ref::Local(n),
        None => Ref::Outer(v),
    }
}

/// The keys of `insts` (in order), numbering each result in `local` after
/// the values already there.
pub(super) fn key_insts(
    f: &Function,
    insts: &[Inst],
    local: &mut FxHashMap<Value, u32>,
) -> Vec<KeyedInst> {
    let mut out = Vec::with_capacity(insts.len());
    for &i in insts {
        let d = f.inst(i);
        let mut ops = Vec::new();
        d.kind.for_each_arg(|v| ops.push(key_ref(local, v)));
        out.push((
            template(&d.kind),
            ops,
            d.result.map(|v| f.value_type(v)),
            d.loc,
        ));
        if let Some(v) = d.result {
            let n = local.len() as u32;
            local.insert(v, n);
        }
    }
    out
}

/// The key of block `b`.
fn key(f: &Function, b: Block) -> Key {
    let data = &f.blocks[b];
    let mut local: FxHashMap<Value, u32> = FxHashMap::default();
    for &p in &data.params {
        let n = local.len() as u32;
        local.insert(p, n);
    }
    let insts = key_insts(f, &data.insts, &mut local);
    let (scrutinee, edges, ret) = match &data.term {
        Terminator::Return(v) => (None, Vec::new(), Some(v.map(|v| key_ref(&local, v)))),
        Terminator::Switch {
            value,
            cases,
            default,
        } => {
            let edge = |k: Option<i64>, e: &crate::ir::BlockCall| {
                (
                    k,
                    e.block,
                    e.args.iter().map(|&v| key_ref(&local, v)).collect(),
                )
            };
            let mut edges: Vec<_> = cases.iter().map(|(k, e)| edge(Some(*k), e)).collect();
            edges.push(edge(None, default));
            (value.map(|v| key_ref(&local, v)), edges, None)
        }
    };
    Key {
        params: data.params.iter().map(|&p| f.value_type(p)).collect(),
        insts,
        scrutinee,
        edges,
        ret,
    }
}
