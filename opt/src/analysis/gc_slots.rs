//! Dead reference slots at safepoints, for tiers that keep every value in
//! a frame slot and whose frames the collector scans conservatively (the
//! interpreter and the baseline code generator).
//!
//! The collector treats every word of such a frame as a possible root, so a
//! reference whose value is dead but still sits in its slot keeps its
//! object alive, while the Cranelift tiers root exactly the references live
//! across each safepoint (`gc_live`'s stack maps). To make every tier keep
//! the same objects, these tiers store zero into a slot before a safepoint
//! when the slot may hold a reference (it was written since it was last
//! cleared) and no value of the slot is live after the safepoint or read
//! by it. The words a safepoint could find unwritten are zeroed before it
//! (on entry in the interpreter; [`unwritten`] says where in baseline
//! code), so no other slot can hold a stale reference. Liveness is the usual backward data-flow problem over slots;
//! "may hold a reference" the forward one (Appel, *Modern Compiler
//! Implementation*, §10.1 and §17.2); both on bit sets over the reference
//! slots only.

use cranelift_entity::EntityRef;
use rustc_hash::FxHashMap;

use crate::ir::{Block, Function, Inst, InstKind, Value};

/// Whether an instruction may run the collector (a safepoint): calls of
/// Waddle and host functions and the allocating operations. The Cranelift
/// tiers use the same rule for their stack maps.
pub fn may_collect(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Call(..)
            | InstKind::HostCall(..)
            | InstKind::ArrayLit(..)
            | InstKind::ArrayRepeat(..)
            | InstKind::ArrayPush(..)
            | InstKind::StrConcat(..)
            | InstKind::ToStr(..)
    )
}

/// Above this many bits of data-flow state (blocks × reference slots) the
/// analysis gives up and reports no clears (a huge generated function
/// keeps dead references until it returns instead of costing gigabytes).
const MAX_STATE_BITS: usize = 1 << 26;

/// A fixed-size bit set over dense reference-slot indices.
#[derive(Clone, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    fn union(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn intersect(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a &= b;
        }
    }
    /// The first `n` indices not in `self`.
    fn complement(&self, n: usize) -> Bits {
        let mut out = Bits(self.0.iter().map(|w| !w).collect());
        if !n.is_multiple_of(64) {
            if let Some(last) = out.0.last_mut() {
                *last &= (1 << (n % 64)) - 1;
            }
        }
        out
    }
    /// How many indices are in the set.
    fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// The indices in the set, ascending: a word at a time, so a sparse set
    /// of `n` bits costs `n / 64` steps plus one per member.
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    k * 64 + b
                })
            })
        })
    }
}

/// The reference slots live after one safepoint, kept until the forward
/// walk reaches it: as a bit set, or as a list of its members when that is
/// smaller (a long block of safepoints with few references live across
/// each would otherwise keep a set of every slot per safepoint,
/// quadratic in the block's length).
enum LiveAfter {
    Dense(Bits),
    Sparse(Vec<u32>),
}

impl LiveAfter {
    fn new(live: &Bits) -> LiveAfter {
        let members = live.count();
        if members * 32 < live.0.len() * 64 {
            LiveAfter::Sparse(live.ones().map(|d| d as u32).collect())
        } else {
            LiveAfter::Dense(live.clone())
        }
    }
    fn to_bits(&self, n: usize) -> Bits {
        match self {
            LiveAfter::Dense(b) => b.clone(),
            LiveAfter::Sparse(v) => {
                let mut b = Bits::new(n);
                for &d in v {
                    b.set(d as usize);
                }
                b
            }
        }
    }
}

/// For every safepoint of `func` (among `blocks`, the blocks the tier
/// emits) where some slot must be cleared: the slots to store zero into
/// just before it, ascending.
///
/// `slot_of` maps a value to the frame slot the tier keeps it in (`None`
/// for values the tier never stores in a writable slot, such as constants
/// filled on entry). Several values may share a slot as long as their live
/// ranges do not overlap, which every correct slot assignment ensures. A
/// slot counts as a reference slot when any of its values has a reference
/// type. The parameters of the entry block are written by the caller.
pub fn dead_ref_clears(
    func: &Function,
    blocks: &[Block],
    slot_of: impl Fn(Value) -> Option<u32>,
) -> FxHashMap<Inst, Vec<u32>> {
    let mut out = FxHashMap::default();
    // Dense indices of the reference slots.
    let mut dense: FxHashMap<u32, usize> = FxHashMap::default();
    let mut slots: Vec<u32> = Vec::new();
    let mut note = |v: Value, dense: &mut FxHashMap<u32, usize>| {
        if func.value_type(v).is_ref() {
            if let Some(s) = slot_of(v) {
                dense.entry(s).or_insert_with(|| {
                    slots.push(s);
                    slots.len() - 1
                });
            }
        }
    };
    for &b in blocks {
        let data = &func.blocks()[b];
        for &p in &data.params {
            note(p, &mut dense);
        }
        for &i in &data.insts {
            if let Some(r) = func.inst(i).result {
                note(r, &mut dense);
            }
        }
    }
    let n = slots.len();
    if n == 0 || blocks.len().saturating_mul(n) > MAX_STATE_BITS {
        return out;
    }
    let idx = |v: Value| slot_of(v).and_then(|s| dense.get(&s).copied());
    let mut pos: FxHashMap<Block, usize> = FxHashMap::default();
    for (k, &b) in blocks.iter().enumerate() {
        pos.insert(b, k);
    }
    let succs: Vec<Vec<usize>> = (blocks.iter())
        .map(|&b| {
            (func.blocks()[b].term.successors())
                .filter_map(|c| pos.get(&c.block).copied())
                .collect()
        })
        .collect();

    // Liveness: live_in(b) = uses before defs, walking backwards.
    let live_before = |k: usize, mut live: Bits| -> Bits {
        let data = &func.blocks()[blocks[k]];
        data.term.for_each_arg(|v| {
            if let Some(d) = idx(v) {
                live.set(d);
            }
        });
        for &i in data.insts.iter().rev() {
            let inst = func.inst(i);
            if let Some(d) = inst.result.and_then(idx) {
                live.clear(d);
            }
            inst.kind.for_each_arg(|v| {
                if let Some(d) = idx(v) {
                    live.set(d);
                }
            });
        }
        for &p in &data.params {
            if let Some(d) = idx(p) {
                live.clear(d);
            }
        }
        live
    };
    let mut live_in = vec![Bits::new(n); blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..blocks.len()).rev() {
            let mut lo = Bits::new(n);
            for &s in &succs[k] {
                lo.union(&live_in[s]);
            }
            let li = live_before(k, lo);
            if li != live_in[k] {
                live_in[k] = li;
                changed = true;
            }
        }
    }

    // "May hold a reference", forward; `record` collects the clears.
    let walk = |k: usize, mut dirty: Bits, record: &mut Option<&mut FxHashMap<Inst, Vec<u32>>>| {
        let data = &func.blocks()[blocks[k]];
        for &p in &data.params {
            if let Some(d) = idx(p) {
                dirty.set(d);
            }
        }
        // Live after each instruction, for the safepoints of this block.
        let mut live = Bits::new(n);
        for &s in &succs[k] {
            live.union(&live_in[s]);
        }
        data.term.for_each_arg(|v| {
            if let Some(d) = idx(v) {
                live.set(d);
            }
        });
        let mut after: Vec<Option<LiveAfter>> = (data.insts.iter()).map(|_| None).collect();
        for (j, &i) in data.insts.iter().enumerate().rev() {
            let inst = func.inst(i);
            if may_collect(&inst.kind) {
                after[j] = Some(LiveAfter::new(&live));
            }
            if let Some(d) = inst.result.and_then(idx) {
                live.clear(d);
            }
            inst.kind.for_each_arg(|v| {
                if let Some(d) = idx(v) {
                    live.set(d);
                }
            });
        }
        for (j, &i) in data.insts.iter().enumerate() {
            let inst = func.inst(i);
            if let Some(live_after) = &after[j] {
                let mut keep = live_after.to_bits(n);
                inst.kind.for_each_arg(|v| {
                    if let Some(d) = idx(v) {
                        keep.set(d);
                    }
                });
                // Dirty and not kept: cleared (a word at a time).
                let mut gone = keep.complement(n);
                gone.intersect(&dirty);
                dirty.intersect(&keep);
                let mut clears: Vec<u32> = gone.ones().map(|d| slots[d]).collect();
                if let Some(rec) = record.as_deref_mut() {
                    if !clears.is_empty() {
                        clears.sort_unstable();
                        rec.insert(i, clears);
                    }
                }
            }
            if let Some(d) = inst.result.and_then(idx) {
                dirty.set(d);
            }
        }
        dirty
    };
    let mut dirty_in = vec![Bits::new(n); blocks.len()];
    if let Some(&entry) = func.layout().first() {
        // The caller wrote the entry block's parameters.
        if let Some(&k) = pos.get(&entry) {
            for &p in &func.blocks()[entry].params {
                if let Some(d) = idx(p) {
                    dirty_in[k].set(d);
                }
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..blocks.len() {
            let d = walk(k, dirty_in[k].clone(), &mut None);
            for &s in &succs[k] {
                let mut m = dirty_in[s].clone();
                m.union(&d);
                if m != dirty_in[s] {
                    dirty_in[s] = m;
                    changed = true;
                }
            }
        }
    }
    for (k, d) in dirty_in.iter().enumerate() {
        walk(k, d.clone(), &mut Some(&mut out));
    }
    out
}

/// The slot of each value when every value has its own slot, numbered by
/// the value (the baseline code generator's frame layout).
pub fn own_slot(v: Value) -> Option<u32> {
    u32::try_from(v.index()).ok()
}

pub mod unwritten;

#[cfg(test)]
mod tests;
