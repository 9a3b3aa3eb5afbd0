//! Dominator tree tests: fixed shapes and a comparison against the
//! definition (a dominates b iff b is unreachable from the entry once a is
//! removed) on pseudo-random CFGs.

use super::*;
use crate::ir::{BlockCall, FunctionBuilder, Signature, Terminator, Type};

/// A function whose layout is `n` blocks, with `edges[i]` the successors of
/// block `i` (as a switch on an int parameter of the entry block).
fn graph(n: usize, edges: &[Vec<usize>]) -> (Function, Vec<Block>) {
    let mut f = Function::new(
        "g",
        Signature {
            params: vec![Type::Int],
            ret: Type::Unit,
        },
    );
    let mut b = FunctionBuilder::new(&mut f);
    let blocks: Vec<Block> = (0..n).map(|_| b.create_block()).collect();
    let x = b.append_block_param(blocks[0], Type::Int);
    for (i, succ) in edges.iter().enumerate() {
        let term = match succ.as_slice() {
            [] => Terminator::Return(None),
            [only] => Terminator::jump(BlockCall::new(blocks[*only], vec![])),
            [rest @ .., last] => Terminator::Switch {
                value: Some(x),
                cases: rest
                    .iter()
                    .enumerate()
                    .map(|(k, &t)| (k as i64, BlockCall::new(blocks[t], vec![])))
                    .collect(),
                default: BlockCall::new(blocks[*last], vec![]),
            },
        };
        b.set_terminator(blocks[i], term);
    }
    (f, blocks)
}

fn reachable_without(cfg: &ControlFlowGraph, entry: Block, removed: Option<Block>) -> Vec<Block> {
    let mut seen = vec![entry];
    if Some(entry) == removed {
        return Vec::new();
    }
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        for &s in cfg.succs(b) {
            if Some(s) != removed && !seen.contains(&s) {
                seen.push(s);
                work.push(s);
            }
        }
    }
    seen
}

#[test]
fn diamond_with_loop() {
    // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 1, 4; 5 unreachable -> 4
    let (f, b) = graph(
        6,
        &[vec![1, 2], vec![3], vec![3], vec![1, 4], vec![], vec![4]],
    );
    let cfg = ControlFlowGraph::compute(&f);
    let dt = DomTree::compute(&f, &cfg);
    assert_eq!(dt.idom(b[0]), None);
    assert_eq!(dt.idom(b[1]), Some(b[0]));
    assert_eq!(dt.idom(b[2]), Some(b[0]));
    assert_eq!(dt.idom(b[3]), Some(b[0]));
    assert_eq!(dt.idom(b[4]), Some(b[3]));
    assert!(!dt.is_reachable(b[5]));
    assert_eq!(dt.idom(b[5]), None);
    assert!(!dt.dominates(b[0], b[5]) && !dt.dominates(b[5], b[5]));
    assert!(dt.dominates(b[3], b[4]) && !dt.dominates(b[1], b[4]));
    assert_eq!(dt.rpo().len(), 5);
    assert_eq!(dt.rpo()[0], b[0]);
    assert_eq!(dt.rpo_number(b[5]), None);
    assert_eq!(dt.children(b[0]).len(), 3);
}

#[test]
fn declaration_is_empty() {
    let f = Function::new(
        "d",
        Signature {
            params: vec![],
            ret: Type::Unit,
        },
    );
    let cfg = ControlFlowGraph::compute(&f);
    let dt = DomTree::compute(&f, &cfg);
    assert!(dt.rpo().is_empty());
}

#[test]
fn matches_definition_on_random_graphs() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |m: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % m
    };
    for _ in 0..300 {
        let n = 1 + next(12);
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|_| (0..next(4)).map(|_| next(n)).collect())
            .collect();
        let (f, blocks) = graph(n, &edges);
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DomTree::compute(&f, &cfg);
        let entry = blocks[0];
        let reach = reachable_without(&cfg, entry, None);
        for &b in &blocks {
            assert_eq!(dt.is_reachable(b), reach.contains(&b));
        }
        for &a in &reach {
            let without = reachable_without(&cfg, entry, Some(a));
            for &b in &reach {
                let expect = !without.contains(&b);
                assert_eq!(dt.dominates(a, b), expect, "{a} dom {b} in {edges:?}");
            }
        }
        // idom is the strict dominator dominated by every other strict dominator.
        for &b in &reach {
            match dt.idom(b) {
                None => assert_eq!(b, entry),
                Some(d) => {
                    assert!(dt.strictly_dominates(d, b));
                    for &c in &reach {
                        if dt.strictly_dominates(c, b) {
                            assert!(dt.dominates(c, d));
                        }
                    }
                }
            }
        }
        // RPO: the entry first, and every idom precedes the blocks it dominates.
        assert_eq!(dt.rpo_number(entry), Some(0));
        for &b in &reach {
            if let Some(d) = dt.idom(b) {
                assert!(dt.rpo_number(d) < dt.rpo_number(b));
            }
        }
    }
}
