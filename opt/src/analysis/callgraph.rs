//! The direct call graph of a program and its recursive functions: those
//! on a cycle of direct calls (a strongly connected component with more
//! than one function, or a function calling itself), found with Tarjan's
//! algorithm (iterative, so deep call chains cannot overflow the stack).
//!
//! Recursion depth is counted in frames of recursive functions only (see
//! [`crate::abi::VmCtx::depth_left`]), and the inliner never inlines a
//! recursive function, so every tier and every optimization level count
//! the same frames: inlining only removes frames of functions that are
//! not counted.

use cranelift_entity::{EntityRef, SecondaryMap};

use crate::ir::{FuncId, InstKind, Program};

/// The distinct functions `f` calls directly, in first-call order.
/// `seen[c]` is `Some(f)` once `c` is among them: one mark per callee
/// instead of a search of the list, so a function calling `n` distinct
/// functions costs `O(n)`, not `O(n²)` (`seen` is shared by the scan of the
/// whole program, marks of other callers are simply overwritten).
fn callees(p: &Program, f: FuncId, seen: &mut SecondaryMap<FuncId, Option<FuncId>>) -> Vec<FuncId> {
    let func = &p.funcs[f];
    let mut out = Vec::new();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            if let InstKind::Call(c, _) = func.insts[i].kind {
                if p.funcs.get(c).is_some() && seen[c] != Some(f) {
                    seen[c] = Some(f);
                    out.push(c);
                }
            }
        }
    }
    out
}

/// The strongly connected components of the direct call graph of `p`
/// (Tarjan), callees first: a component comes after every component it
/// calls into. Each component is a list of function indices.
fn components(p: &Program, edges: &[Vec<FuncId>]) -> Vec<Vec<usize>> {
    let n = p.funcs.len();
    let mut comps = Vec::new();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0usize;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, next edge to visit)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if let Some(&w) = edges[v].get(*k) {
                *k += 1;
                let w = w.index();
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(scc);
            }
        }
    }
    comps
}

/// The direct callees of every function of `p`, by index.
fn call_edges(p: &Program) -> Vec<Vec<FuncId>> {
    let mut seen = SecondaryMap::with_capacity(p.funcs.len());
    (0..p.funcs.len())
        .map(|i| callees(p, FuncId::new(i), &mut seen))
        .collect()
}

/// For every function of `p`, whether it is recursive (on a cycle of
/// direct calls).
pub fn recursive_functions(p: &Program) -> SecondaryMap<FuncId, bool> {
    bottom_up(p).recursive
}

/// What a bottom-up inliner needs of the call graph of a program, from one
/// scan of its instructions.
pub struct BottomUp {
    /// Every function, callees before their callers ([`bottom_up_order`]).
    pub order: Vec<FuncId>,
    /// Whether each function is recursive ([`recursive_functions`]).
    pub recursive: SecondaryMap<FuncId, bool>,
    /// The distinct functions each function calls directly, by index.
    pub callees: Vec<Vec<FuncId>>,
}

/// [`bottom_up_order`], [`recursive_functions`] and the direct callees of
/// every function of `p` at once.
pub fn bottom_up(p: &Program) -> BottomUp {
    let edges = call_edges(p);
    let comps = components(p, &edges);
    let mut recursive: SecondaryMap<FuncId, bool> = SecondaryMap::with_capacity(p.funcs.len());
    for scc in &comps {
        let cyclic = scc.len() > 1 || edges[scc[0]].contains(&FuncId::new(scc[0]));
        for &w in scc {
            recursive[FuncId::new(w)] = cyclic;
        }
    }
    BottomUp {
        order: comps.into_iter().flatten().map(FuncId::new).collect(),
        recursive,
        callees: edges,
    }
}

/// Every function of `p`, callees before their callers (bottom-up; the
/// functions of one cycle in any order): the order in which an inliner
/// sees each callee already optimized.
pub fn bottom_up_order(p: &Program) -> Vec<FuncId> {
    bottom_up(p).order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_program;

    #[test]
    fn cycles_and_self_calls_are_recursive() {
        // 0 -> 1 -> 2 -> 1 (cycle {1, 2}), 3 calls itself, 4 is a leaf.
        let text = "\
fn fn0 \".main\"() -> void {
block0:
    call fn1 \"a\"()
    call fn4 \"leaf\"()
    return
}
fn fn1 \"a\"() -> void {
block0:
    call fn2 \"b\"()
    return
}
fn fn2 \"b\"() -> void {
block0:
    call fn1 \"a\"()
    return
}
fn fn3 \"c\"() -> void {
block0:
    call fn3 \"c\"()
    return
}
fn fn4 \"leaf\"() -> void {
block0:
    return
}
";
        let p = parse_program(text).expect("parses");
        let r = recursive_functions(&p);
        let got: Vec<bool> = (0..5).map(|i| r[FuncId::new(i)]).collect();
        assert_eq!(got, [false, true, true, true, false]);
        // Bottom up: every function once, callees before callers.
        let order: Vec<usize> = bottom_up_order(&p).iter().map(|f| f.index()).collect();
        let pos = |f: usize| order.iter().position(|&g| g == f).unwrap();
        assert_eq!(order.len(), 5);
        assert!(
            pos(4) < pos(0) && pos(1) < pos(0) && pos(2) < pos(0),
            "{order:?}"
        );
        // One scan gives the same order and recursion, and the callees.
        let g = bottom_up(&p);
        assert_eq!(g.order, bottom_up_order(&p));
        assert_eq!(
            (0..5)
                .map(|i| g.recursive[FuncId::new(i)])
                .collect::<Vec<_>>(),
            got
        );
        assert_eq!(g.callees[0], [FuncId::new(1), FuncId::new(4)]);
        assert!(g.callees[4].is_empty());
    }

    #[test]
    fn callees_are_distinct_per_caller_in_first_call_order() {
        // 0 calls 2, 1, 2, 1; 1 calls 2 twice (2 was already a callee of 0:
        // each caller has its own set); 2 calls nothing.
        let text = "\
fn fn0 \".main\"() -> void {
block0:
    call fn2 \"b\"()
    call fn1 \"a\"()
    call fn2 \"b\"()
    call fn1 \"a\"()
    return
}
fn fn1 \"a\"() -> void {
block0:
    call fn2 \"b\"()
    call fn2 \"b\"()
    return
}
fn fn2 \"b\"() -> void {
block0:
    return
}
";
        let p = parse_program(text).expect("parses");
        let g = bottom_up(&p);
        assert_eq!(g.callees[0], [FuncId::new(2), FuncId::new(1)]);
        assert_eq!(g.callees[1], [FuncId::new(2)]);
        assert!(g.callees[2].is_empty());
    }
}
