//! On-stack replacement entries: a function that starts at a loop header.
//!
//! A loop that runs hot on the interpreter (a program's top-level loop, a
//! kernel called once) continues in compiled code through an *OSR entry*:
//! a new function made from the original, whose entry block takes the
//! loop's live state as parameters and jumps to the loop header. The state
//! is
//! - the header's block parameters (the loop-carried values: in Waddle IR
//!   they replace φ nodes, Fritz ch. 3), then
//! - every other value the code from the header on uses but defines
//!   outside it (values computed before the loop: array and string
//!   references, bounds, accumulators the loop only reads).
//!
//! Constants among the latter are not state: the entry block recomputes
//! them, so the optimizer still sees them as constants.
//!
//! The entry function keeps only the blocks reachable from the header (the
//! loop and everything after it); the rest of the original is dropped.
//! This is only sound at a header whose preheader cannot be reached from
//! the header again, i.e. a loop that is not nested in another cycle (an
//! outermost loop of reducible code): then every block that remains is
//! either in the loop, which the header dominates, or after it, so every
//! definition that remains still dominates its uses (the new entry block
//! dominates everything). [`osr_entry`] returns `None` at any other block.
//! The result is in canonical form whenever the original is: the entry
//! block is the loop's dedicated preheader, and nothing else changes.

use cranelift_entity::SecondaryMap;

use crate::ir::{
    Block, BlockCall, Function, FunctionBuilder, InstKind, Terminator, Type, Value, ValueDef,
};

/// An OSR entry of a function at one loop header (see the module docs).
#[derive(Clone, Debug)]
pub struct OsrEntry {
    /// The entry function: its parameters are [`OsrEntry::state`]'s words,
    /// in order; it returns what the original returns.
    pub func: Function,
    /// The values of the original function whose words, read from the
    /// running frame at the header, are the entry's arguments.
    pub state: Vec<Value>,
}

/// Blocks reachable from `from` (inclusive).
fn reachable(f: &Function, from: Block) -> SecondaryMap<Block, bool> {
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::with_capacity(f.blocks().len());
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(b) = stack.pop() {
        for s in f.blocks()[b].term.successors() {
            if !seen[s.block] {
                seen[s.block] = true;
                stack.push(s.block);
            }
        }
    }
    seen
}

/// Whether `header` is a loop header where an OSR entry is sound: it has a
/// predecessor that is not reachable from it (the preheader) and one that
/// is (a latch).
pub fn is_osr_point(f: &Function, header: Block) -> bool {
    if f.is_declaration() || !f.layout().contains(&header) || header == f.entry() {
        return false;
    }
    let kept = reachable(f, header);
    let (mut outside, mut inside) = (false, false);
    for &b in f.layout() {
        if f.blocks()[b].term.successors().any(|s| s.block == header) {
            if kept[b] {
                inside = true;
            } else {
                outside = true;
            }
        }
    }
    outside && inside && !kept[f.entry()]
}

/// The OSR entry of `f` at loop header `header`, or `None` where an entry
/// is not sound (see the module docs).
pub fn osr_entry(f: &Function, header: Block) -> Option<OsrEntry> {
    if !is_osr_point(f, header) {
        return None;
    }
    let kept = reachable(f, header);
    let layout: Vec<Block> = f.layout().iter().copied().filter(|&b| kept[b]).collect();
    // Values used by kept code but defined outside it.
    let mut inst_block: SecondaryMap<crate::ir::Inst, Option<Block>> = SecondaryMap::new();
    for &b in f.layout() {
        for &i in &f.blocks()[b].insts {
            inst_block[i] = Some(b);
        }
    }
    let defined_outside = |v: Value| -> bool {
        let b = match f.values()[v].def {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Inst(i) => inst_block[i],
        };
        b.is_none_or(|b| !kept[b])
    };
    let mut live_in: Vec<Value> = Vec::new();
    let mut seen: SecondaryMap<Value, bool> = SecondaryMap::with_capacity(f.values().len());
    let mut note = |v: Value| {
        if !seen[v] && defined_outside(v) {
            seen[v] = true;
            live_in.push(v);
        }
    };
    for &b in &layout {
        let bd = &f.blocks()[b];
        for &i in &bd.insts {
            f.insts()[i].kind.for_each_arg(&mut note);
        }
        bd.term.for_each_arg(&mut note);
    }
    let mut g = f.clone();
    let mut state: Vec<Value> = f.blocks()[header].params.clone();
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let mut b = FunctionBuilder::new(&mut g);
    let entry = b.create_block();
    let mut header_args = Vec::new();
    for &p in &f.blocks()[header].params {
        header_args.push(b.append_block_param(entry, f.value_type(p)));
    }
    for &v in &live_in {
        let ValueDef::Inst(i) = f.values()[v].def else {
            continue;
        };
        let data = f.inst(i);
        if matches!(
            data.kind,
            InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_) | InstKind::SConst(_)
        ) {
            let c = b.ins(entry, data.kind.clone(), f.value_type(v), data.loc);
            subst[v] = Some(c);
        }
    }
    for &v in &live_in {
        if subst[v].is_none() {
            subst[v] = Some(b.append_block_param(entry, f.value_type(v)));
            state.push(v);
        }
    }
    b.set_terminator(entry, Terminator::jump(BlockCall::new(header, header_args)));
    for &blk in &layout {
        let insts = b.func.blocks[blk].insts.clone();
        for i in insts {
            b.inst_mut(i).kind.for_each_arg_mut(|v| {
                if let Some(n) = subst[*v] {
                    *v = n;
                }
            });
        }
        b.block_mut(blk).term.for_each_arg_mut(|v| {
            if let Some(n) = subst[*v] {
                *v = n;
            }
        });
    }
    let mut order = vec![entry];
    order.extend(layout);
    b.set_layout(order);
    let params: Vec<Type> = state.iter().map(|&v| f.value_type(v)).collect();
    g.sig.params = params;
    Some(OsrEntry { func: g, state })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_function, verify_function_as, FuncId, Program};
    use cranelift_entity::EntityRef;

    fn verify(f: &Function) {
        verify_function_as(&Program::default(), FuncId::new(0), f).unwrap();
    }

    const NESTED: &str = "fn fn0 \"f\"([int], int, int) -> int @1:4 {
block0(v0: [int], v1: int, v2: int):
    v3: int = iconst 0
    v4: int = iconst 0
    v5: int = array_len v0
    jump block1(v4, v3)
block1(v6: int, v24: int):
    v7: bool = icmp lt v6, v5
    br v7, block2, block4
block2:
    v8: int = iconst 0
    v9: int = iconst 3
    jump block5(v8, v24)
block5(v10: int, v12: int):
    v11: bool = icmp lt v10, v9
    br v11, block6, block8
block6:
    bounds_check v0, v6 @5:19
    v15: int = array_get v0, v6
    v18: int = imul v1, v2
    v19: int = imul v15, v18
    v20: int = iadd v19, v10
    v21: int = iadd v12, v20
    jump block7
block7:
    v22: int = iconst 1
    v23: int = iadd v10, v22
    jump block5(v23, v21)
block8:
    jump block3
block3:
    v28: int = iconst 1
    v29: int = iadd v6, v28
    jump block1(v29, v12)
block4:
    return v24
}
";

    #[test]
    fn outer_loop_entry_takes_header_params_then_live_ins() {
        let f = parse_function(NESTED).unwrap();
        let e = osr_entry(&f, Block::new(1)).expect("outermost loop");
        verify(&e.func);
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        // v6, v24 (header parameters), then v5, v0, v1, v2 by first use.
        assert_eq!(names, vec![6, 24, 5, 0, 1, 2]);
        assert_eq!(e.func.sig.params.len(), 6);
        assert_eq!(e.func.sig.ret, f.sig.ret);
        // The code before the loop is gone.
        assert!(!e.func.layout().contains(&Block::new(0)));
    }

    #[test]
    fn no_entry_inside_a_nested_loop_or_at_non_headers() {
        let f = parse_function(NESTED).unwrap();
        assert!(osr_entry(&f, Block::new(5)).is_none(), "inner loop");
        assert!(osr_entry(&f, Block::new(0)).is_none(), "entry block");
        assert!(osr_entry(&f, Block::new(6)).is_none(), "not a header");
        assert!(is_osr_point(&f, Block::new(1)));
    }

    #[test]
    fn constants_are_recomputed_not_transferred() {
        let text = "fn fn0 \"g\"(int) -> int @1:1 {
block0(v0: int):
    v1: int = iconst 7
    v2: int = iconst 0
    jump block1(v2)
block1(v3: int):
    v4: bool = icmp lt v3, v0
    br v4, block2, block3
block2:
    v5: int = iadd v3, v1
    jump block1(v5)
block3:
    return v3
}
";
        let f = parse_function(text).unwrap();
        let e = osr_entry(&f, Block::new(1)).unwrap();
        verify(&e.func);
        let names: Vec<usize> = e.state.iter().map(|v| v.index()).collect();
        assert_eq!(names, vec![3, 0]);
    }
}
