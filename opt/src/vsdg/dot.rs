//! Graphviz rendering of a VSDG: one cluster per region, value edges solid,
//! state edges dashed (the drawing convention of Lawrence's figures, §2.1),
//! and each region's tail as a box node.

use std::fmt::Write;

use crate::ir::{print_inst, Function, InstData, InstKind, Program, SrcLoc};

use super::dne::liveness;
use super::graph::{Graph, Node, Op, Owner, Region, Sort, Tail};

/// Renders the live part of `g` (the VSDG of a function named `name`) as a
/// `digraph` in DOT syntax.
pub fn to_dot(g: &Graph, name: &str) -> String {
    let live = liveness(g);
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(name));
    let _ = writeln!(out, "  node [shape=ellipse, fontname=\"monospace\"];");
    // Nodes by creation region.
    let mut by_region: Vec<Vec<Node>> = vec![Vec::new(); g.regions.len()];
    for n in g.nodes.keys().filter(|&n| live.nodes.contains(n)) {
        by_region[g.nodes[n].region.as_u32() as usize].push(n);
    }
    region(g, &live, g.root, &by_region, &mut out, 1);
    for n in g.nodes.keys().filter(|&n| live.nodes.contains(n)) {
        for (i, p) in g.nodes[n].inputs.iter().enumerate() {
            let style = if g.sort(*p) == Sort::State {
                "dashed"
            } else {
                "solid"
            };
            let _ = writeln!(
                out,
                "  {} -> {} [style={style}, taillabel=\"{}\", headlabel=\"{i}\"];",
                p.node, n, p.index
            );
        }
    }
    for r in g.regions.keys().filter(|&r| live.regions.contains(r)) {
        let mut i = 0;
        g.regions[r].tail.for_each_use(|p| {
            let style = if g.sort(p) == Sort::State {
                "dashed"
            } else {
                "solid"
            };
            let _ = writeln!(
                out,
                "  {} -> tail_{r} [style={style}, headlabel=\"{i}\"];",
                p.node
            );
            i += 1;
        });
    }
    out.push_str("}\n");
    out
}

fn region(
    g: &Graph,
    live: &super::dne::Liveness,
    r: Region,
    by_region: &[Vec<Node>],
    out: &mut String,
    indent: usize,
) {
    let pad = "  ".repeat(indent);
    let label = match g.regions[r].owner {
        Owner::Root => "function".to_string(),
        Owner::Arm(n, i) => format!("{n} arm {i}"),
        Owner::Body(n) => format!("{n} body"),
        Owner::Exit(n, i) => format!("{n} exit {i}"),
        Owner::TailArm(p, i) => format!("{p} switch arm {i}"),
    };
    let _ = writeln!(out, "{pad}subgraph cluster_{r} {{");
    let _ = writeln!(out, "{pad}  label=\"{r}: {label}\";");
    for &n in &by_region[r.as_u32() as usize] {
        let d = &g.nodes[n];
        let (text, shape) = match &d.op {
            Op::Args => ("args".to_string(), "invtriangle"),
            Op::Simple(kind) => (kind_text(kind), "ellipse"),
            Op::Gamma { keys, .. } => (format!("γ {keys:?}"), "trapezium"),
            Op::Theta { .. } => ("θ".to_string(), "doubleoctagon"),
        };
        let _ = writeln!(
            out,
            "{pad}  {n} [label=\"{n}: {}\", shape={shape}];",
            escape(&text)
        );
        if let Op::Gamma { arms, .. } | Op::Theta { exits: arms, .. } = &d.op {
            if let Op::Theta { body, .. } = &d.op {
                region(g, live, *body, by_region, out, indent + 1);
            }
            for &a in arms {
                if live.regions.contains(a) {
                    region(g, live, a, by_region, out, indent + 1);
                }
            }
        }
    }
    let tail = match &g.regions[r].tail {
        Tail::Pending => "pending".to_string(),
        Tail::Yield(_) => "yield".to_string(),
        Tail::Return(..) => "return".to_string(),
        Tail::Continue(_) => "continue".to_string(),
        Tail::Break(k, _) => format!("break {k}"),
        Tail::Switch { keys, .. } => format!("switch {keys:?}"),
        Tail::Loop(t) => format!("loop {t}"),
    };
    let _ = writeln!(out, "{pad}  tail_{r} [label=\"{tail}\", shape=box];");
    if let Tail::Switch { arms, .. } = &g.regions[r].tail {
        for &a in arms {
            region(g, live, a, by_region, out, indent + 1);
        }
    }
    let _ = writeln!(out, "{pad}}}");
}

/// The instruction's mnemonic without operands (they are the edges).
fn kind_text(kind: &InstKind) -> String {
    let mut f = Function::new(
        "",
        crate::ir::Signature {
            params: Vec::new(),
            ret: crate::ir::Type::Unit,
        },
    );
    let data = InstData {
        kind: kind.clone(),
        result: None,
        loc: SrcLoc::NONE,
    };
    let inst = f.insts.push(data);
    // Placeholder operands print as `v0`; show them as `_`.
    print_inst(&Program::default(), &f, inst).replace("v0", "_")
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
