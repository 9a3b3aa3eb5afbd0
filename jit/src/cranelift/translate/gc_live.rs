//! Which reference values need a stack map: those live across an
//! instruction that may collect garbage.
//!
//! Cranelift's frontend keeps a value declared "needs stack map" in a stack
//! slot across *every* call, and then reloads it from that slot at *every*
//! use. Declaring every array and string value that way (what the
//! translation did first) made each `a[i]` in a hot loop reload `a` from the
//! stack, only because the loop's fuel tick has a cold helper call — a call
//! that never collects. Only calls that can run the collector need the
//! references on the stack (`crate::abi`, "Garbage collection"): calls of
//! Waddle functions, host calls, and the allocating helpers (array literals
//! and repeats, push, string concatenation, `str`). Print, clock, fuel and
//! the math helpers take no roots and cannot collect.
//!
//! The liveness is computed per reference value on the Waddle IR, in SSA
//! form, by walking up from each use to the definition and marking blocks
//! live-in (Appel's "path exploration"; Boissinot et al., *Fast liveness
//! checking for SSA-form programs*, 2008, §2): linear in the size of the
//! values' live ranges. A value needs a map iff some collecting instruction
//! has the value available before it (defined earlier in its block, or live
//! into the block) and still live after it (used later in the block, or live
//! out of it). The Cranelift value of a copy is its source's, so a copy and
//! its source share a slot when either needs it; the union of their live
//! ranges crosses a collecting instruction only if one of them does.

use std::collections::{HashMap, HashSet};

use waddle_opt::ir::{Block, Function, Value, ValueDef};

use waddle_opt::analysis::gc_slots::may_collect;

/// Whether any instruction of `func` may run the garbage collector.
pub(super) fn any_may_collect(func: &Function) -> bool {
    func.layout()
        .iter()
        .any(|&b| (func.blocks()[b].insts.iter()).any(|&i| may_collect(&func.insts()[i].kind)))
}

/// The reference values of `func` that are live across an instruction that
/// may collect, among the blocks of `blocks` (the reachable ones).
pub(super) fn needs_stack_map(func: &Function, blocks: &[Block]) -> HashSet<Value> {
    let mut out = HashSet::new();
    // Positions of collecting instructions per block.
    let mut gc: HashMap<Block, Vec<usize>> = HashMap::new();
    for &b in blocks {
        let ks: Vec<usize> = (func.blocks()[b].insts.iter().enumerate())
            .filter(|(_, &i)| may_collect(&func.insts()[i].kind))
            .map(|(k, _)| k)
            .collect();
        if !ks.is_empty() {
            gc.insert(b, ks);
        }
    }
    if gc.is_empty() {
        return out;
    }
    // Uses of reference values (block, position; the terminator is at
    // `insts.len()`) and predecessors.
    let mut uses: HashMap<Value, Vec<(Block, usize)>> = HashMap::new();
    let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
    let mut defs: HashMap<Value, (Block, usize)> = HashMap::new();
    let is_ref = |v: Value| func.value_type(v).is_ref();
    for &b in blocks {
        let data = &func.blocks()[b];
        for (k, &i) in data.insts.iter().enumerate() {
            if let Some(r) = func.insts()[i].result.filter(|&r| is_ref(r)) {
                defs.insert(r, (b, k));
            }
            func.insts()[i].kind.for_each_arg(|v| {
                if is_ref(v) {
                    uses.entry(v).or_default().push((b, k));
                }
            });
        }
        let end = data.insts.len();
        data.term.for_each_arg(|v| {
            if is_ref(v) {
                uses.entry(v).or_default().push((b, end));
            }
        });
        for c in data.term.successors() {
            preds.entry(c.block).or_default().push(b);
        }
    }
    let mut live_in: HashSet<Block> = HashSet::new();
    let mut last_use: HashMap<Block, usize> = HashMap::new();
    let mut work: Vec<Block> = Vec::new();
    for (&v, vuses) in &uses {
        let (def_block, def_pos) = match func.values()[v].def {
            ValueDef::Param(b, _) => (b, None),
            ValueDef::Inst(_) => match defs.get(&v) {
                Some(&(b, k)) => (b, Some(k)),
                // Defined in an unreachable block: never runs.
                None => continue,
            },
        };
        live_in.clear();
        last_use.clear();
        for &(b, k) in vuses {
            let e = last_use.entry(b).or_insert(k);
            *e = (*e).max(k);
            if b != def_block && live_in.insert(b) {
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &p in preds.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                if p != def_block && live_in.insert(p) {
                    work.push(p);
                }
            }
        }
        let live_out = |b: Block| {
            func.blocks()[b]
                .term
                .successors()
                .any(|c| live_in.contains(&c.block))
        };
        let crosses = |b: Block, ks: &[usize]| {
            let out_live = live_out(b);
            let last = last_use.get(&b).copied();
            ks.iter().any(|&k| {
                let available = if b == def_block {
                    def_pos.is_none_or(|d| d < k)
                } else {
                    live_in.contains(&b)
                };
                available && (out_live || last.is_some_and(|u| u > k))
            })
        };
        let in_range = std::iter::once(def_block).chain(live_in.iter().copied());
        if in_range
            .filter_map(|b| gc.get(&b).map(|ks| (b, ks)))
            .any(|(b, ks)| crosses(b, ks))
        {
            out.insert(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use waddle_opt::ir::parse_program;

    /// The numbers of the values of `fn0` in `text` that need stack maps.
    fn mapped(text: &str) -> Vec<u32> {
        let prog = parse_program(text).expect("parses");
        let f = prog.funcs.values().next().expect("a function");
        let mut v: Vec<u32> = needs_stack_map(f, f.layout())
            .into_iter()
            .map(|v| v.as_u32())
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn live_across_an_allocation_or_call_needs_a_map() {
        // v0 is used after the array literal (which may collect); v1 is
        // defined by it; v3 is only used before the call.
        let text = "fn fn0 \"f\"([int]) -> int {
block0(v0: [int]):
    v1: [int] = array_lit []
    v2: int = array_len v0
    v3: [int] = array_lit [v2]
    v4: int = call fn0 \"f\"(v3)
    v5: int = array_len v1
    return v5
}
";
        assert_eq!(mapped(text), vec![0, 1]);
    }

    #[test]
    fn a_loop_without_collecting_calls_keeps_references_in_registers() {
        // Print and the loop's fuel tick cannot collect: nothing is mapped.
        let text = "fn fn0 \"sum\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    jump block1(v2, v2)
block1(v3: int, v4: int):
    v5: bool = icmp lt v3, v1
    br v5, block2, block3
block2:
    v6: int = array_get v0, v3
    print v6
    v7: int = iadd v4, v6
    v8: int = iconst 1
    v9: int = iadd v3, v8
    jump block1(v9, v7)
block3:
    return v4
}
";
        assert_eq!(mapped(text), Vec::<u32>::new());
    }

    #[test]
    fn live_around_a_loop_with_a_call_needs_a_map() {
        // v0 is used in every iteration of a loop that calls: it is live
        // across the call through the back edge even though its only use
        // comes before the call in the block.
        let text = "fn fn0 \"g\"([int], int) -> int {
block0(v0: [int], v1: int):
    v2: int = iconst 0
    jump block1(v2)
block1(v3: int):
    v5: bool = icmp lt v3, v1
    br v5, block2, block3
block2:
    v6: int = array_get v0, v3
    v7: int = call fn0 \"g\"(v0, v6)
    v8: int = iconst 1
    v9: int = iadd v3, v8
    jump block1(v9)
block3:
    return v3
}
";
        assert_eq!(mapped(text), vec![0]);
    }
}
