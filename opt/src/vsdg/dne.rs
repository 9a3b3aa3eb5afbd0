//! Dead node elimination.
//!
//! Lawrence §2.7.2 (fn 16) and digest §6.1 step 2: a node is dead when no
//! path leads from it to a result of the function — the returned value or
//! the final state. With the state threaded through every effect, this is
//! plain reachability backwards from the tails of the live regions; dead
//! nodes are never sequentialized.

use cranelift_entity::EntitySet;

use super::graph::{Graph, Node, Op, Region, Tail};

/// The live nodes and regions of `g`.
pub struct Liveness {
    /// Nodes reachable backwards from a live region's tail.
    pub nodes: EntitySet<Node>,
    /// Regions whose code can run.
    pub regions: EntitySet<Region>,
}

/// Computes which nodes and regions are live.
pub fn liveness(g: &Graph) -> Liveness {
    let mut live = Liveness {
        nodes: EntitySet::with_capacity(g.nodes.len()),
        regions: EntitySet::with_capacity(g.regions.len()),
    };
    let mut nodes: Vec<Node> = Vec::new();
    let mut regions: Vec<Region> = vec![g.root];
    live.regions.insert(g.root);
    loop {
        if let Some(r) = regions.pop() {
            let tail = &g.regions[r].tail;
            tail.for_each_use(|p| {
                if live.nodes.insert(p.node) {
                    nodes.push(p.node);
                }
            });
            match tail {
                Tail::Switch { arms, .. } => {
                    for &a in arms {
                        if live.regions.insert(a) {
                            regions.push(a);
                        }
                    }
                }
                Tail::Loop(t) if live.nodes.insert(*t) => nodes.push(*t),
                _ => {}
            }
        } else if let Some(n) = nodes.pop() {
            let data = &g.nodes[n];
            for p in &data.inputs {
                if live.nodes.insert(p.node) {
                    nodes.push(p.node);
                }
            }
            match &data.op {
                Op::Gamma { arms, .. } => {
                    for &a in arms {
                        if live.regions.insert(a) {
                            regions.push(a);
                        }
                    }
                }
                Op::Theta { body, exits } => {
                    for &a in std::iter::once(body).chain(exits) {
                        if live.regions.insert(a) {
                            regions.push(a);
                        }
                    }
                }
                _ => {}
            }
        } else {
            break;
        }
    }
    live
}
