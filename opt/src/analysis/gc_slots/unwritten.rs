//! Where a tier that scans its frames conservatively zeroes the frame
//! words a safepoint may find unwritten.
//!
//! A frame word that no path from the entry has written when the collector
//! runs still holds whatever an earlier frame (or, on the native stack, a
//! runtime function) left there, possibly a reference to an object that is
//! dead by now; the conservative scan would keep that object. Zeroing the
//! whole frame on entry is always enough, but it is most of the cost of a
//! small call, and it is paid even on the paths that never reach a
//! safepoint (the base case of a recursive function). Instead, the words a
//! safepoint may find unwritten (a forward "must be written" problem over
//! the words, Appel, *Modern Compiler Implementation*, §17.2) are zeroed
//! just before it; after it every word is written or zeroed, so later
//! safepoints need nothing. Safepoints inside loops, and safepoints that
//! would need many stores, get their words zeroed on entry instead, once
//! per call rather than once per iteration or as a long run of stores.
//!
//! Zeroing a word before a safepoint never destroys a value the function
//! still needs: a value live at the safepoint is defined on every path to
//! it (its definition dominates its uses), so its word is written there.

use rustc_hash::FxHashMap;

use super::{may_collect, Bits};
use crate::ir::{Block, Function, Inst, Value};

/// Above this many bits of data-flow state (blocks × words) the whole
/// frame is zeroed on entry.
const MAX_STATE_BITS: usize = 1 << 26;

/// The zeroing a frame needs: words are numbered by the tier (value slots,
/// then whatever else its frame holds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameZeroing {
    /// Words to zero on entry, ascending.
    pub entry: Vec<u32>,
    /// Words to zero just before a safepoint, ascending.
    pub before: FxHashMap<Inst, Vec<u32>>,
}

/// Reports the words an instruction writes before it may collect.
pub type WritesBefore<'a> = &'a dyn Fn(Inst, &mut dyn FnMut(u32));

/// How a tier writes the words of its frame.
pub struct FrameWrites<'a> {
    /// Number of words of the frame the collector scans.
    pub words: usize,
    /// Words written on entry before any safepoint (parameters, constants).
    pub on_entry: &'a [u32],
    /// The word a value's definition writes (an instruction's result after
    /// the instruction, a block parameter on every edge into its block),
    /// `None` when the tier does not write it then.
    pub def: &'a dyn Fn(Value) -> Option<u32>,
    /// Other words an instruction writes before it may collect (arguments
    /// passed in memory).
    pub before: WritesBefore<'a>,
    /// Most words zeroed just before one safepoint; more go to the entry.
    pub max_inline: usize,
}

/// Plans the zeroing of `func`'s frame (`blocks`: the blocks the tier
/// emits, reachable from the first, in layout order). A function without
/// safepoints needs none: it is never on the stack while the collector
/// scans.
pub fn frame_zeroing(func: &Function, blocks: &[Block], w: &FrameWrites<'_>) -> FrameZeroing {
    let mut out = FrameZeroing::default();
    let n = w.words;
    let has_safepoint = blocks
        .iter()
        .any(|&b| (func.blocks()[b].insts.iter()).any(|&i| may_collect(&func.inst(i).kind)));
    if !has_safepoint || n == 0 {
        return out;
    }
    if blocks.len().saturating_mul(n) > MAX_STATE_BITS {
        out.entry = (0..n as u32).collect();
        return out;
    }
    let mut pos: FxHashMap<Block, usize> = FxHashMap::default();
    for (k, &b) in blocks.iter().enumerate() {
        pos.insert(b, k);
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    // Blocks on a cycle: each lies between the target and the source of
    // some edge going backwards in the layout (every cycle descends across
    // each position between its lowest and highest block).
    let mut span = vec![0i64; blocks.len() + 1];
    for (k, &b) in blocks.iter().enumerate() {
        for c in func.blocks()[b].term.successors() {
            if let Some(&t) = pos.get(&c.block) {
                preds[t].push(k);
                if t <= k {
                    span[t] += 1;
                    span[k + 1] -= 1;
                }
            }
        }
    }
    let mut in_loop = vec![false; blocks.len()];
    let mut depth = 0;
    for k in 0..blocks.len() {
        depth += span[k];
        in_loop[k] = depth > 0;
    }

    let mut entry = Bits::new(n);
    for &s in w.on_entry {
        entry.set(s as usize);
    }
    // Pass 1: unwritten words at each safepoint without any zeroing; the
    // ones of loops and of large sets go to the entry.
    let unwritten = solve(func, blocks, w, &preds, &entry, None);
    let mut to_entry = Bits::new(n);
    walk_all(func, blocks, w, &unwritten, None, &mut |k, _, missing| {
        if in_loop[k] || missing.count() > w.max_inline {
            to_entry.union(missing);
        }
    });
    entry.union(&to_entry);
    out.entry = to_entry.ones().map(|d| d as u32).collect();
    // Pass 2: with those zeroed on entry, each remaining safepoint zeroes
    // what it may find unwritten, after which every word is.
    let zeroing = solve(func, blocks, w, &preds, &entry, Some(()));
    walk_all(func, blocks, w, &zeroing, Some(()), &mut |_, i, missing| {
        let words: Vec<u32> = missing.ones().map(|d| d as u32).collect();
        if !words.is_empty() {
            out.before.insert(i, words);
        }
    });
    out
}

/// The written words at the entry of each block (the greatest fixed point
/// of the "must be written" problem). With `zero`, a safepoint writes every
/// word (the ones missing are zeroed just before it).
fn solve(
    func: &Function,
    blocks: &[Block],
    w: &FrameWrites<'_>,
    preds: &[Vec<usize>],
    entry: &Bits,
    zero: Option<()>,
) -> Vec<Bits> {
    let n = w.words;
    let full = Bits::new(n).complement(n);
    let mut ins = vec![full.clone(); blocks.len()];
    let mut outs = vec![full.clone(); blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..blocks.len() {
            let mut st = full.clone();
            for &p in &preds[k] {
                st.intersect(&outs[p]);
            }
            if k == 0 {
                st.intersect(entry);
            }
            if st != ins[k] || k == 0 {
                ins[k] = st.clone();
                let o = transfer(func, blocks[k], w, st, zero, &mut |_, _| {});
                if o != outs[k] {
                    outs[k] = o;
                    changed = true;
                }
            }
        }
    }
    ins
}

/// Runs block `b` from the written words `st`, calling `at` at each
/// safepoint with the words missing there; returns the words written at
/// its end.
fn transfer(
    func: &Function,
    b: Block,
    w: &FrameWrites<'_>,
    mut st: Bits,
    zero: Option<()>,
    at: &mut dyn FnMut(Inst, &Bits),
) -> Bits {
    let data = &func.blocks()[b];
    for &p in &data.params {
        if let Some(d) = (w.def)(p) {
            st.set(d as usize);
        }
    }
    for &i in &data.insts {
        (w.before)(i, &mut |d| st.set(d as usize));
        if may_collect(&func.inst(i).kind) {
            let missing = st.complement(w.words);
            at(i, &missing);
            if zero.is_some() {
                st.union(&missing);
            }
        }
        if let Some(d) = func.inst(i).result.and_then(|r| (w.def)(r)) {
            st.set(d as usize);
        }
    }
    st
}

/// Calls `at(block index, safepoint, missing words)` for every safepoint.
fn walk_all(
    func: &Function,
    blocks: &[Block],
    w: &FrameWrites<'_>,
    ins: &[Bits],
    zero: Option<()>,
    at: &mut dyn FnMut(usize, Inst, &Bits),
) {
    for (k, &b) in blocks.iter().enumerate() {
        transfer(func, b, w, ins[k].clone(), zero, &mut |i, m| at(k, i, m));
    }
}
