//! The canonicalizing node constructor.
//!
//! Every node is made here, and the always-canonical rewrites run before a
//! node exists (digest §6.1 step 2; Lawrence §2.7.3 on hash-consing, §3.2.3
//! and §7 on γ simplification):
//! - hash-consing of pure nodes, so CSE/GVN is a property of the graph;
//! - constant folding and algebraic identities (`x+0`, `x-x`, `x*1`, …),
//!   with commutative operands ordered so `a+b` and `b+a` meet;
//! - `γ(p, x, x) → x` per component, and a γ whose every component folds
//!   and whose arms do not touch the state disappears;
//! - constant predicates are folded by the lifter, which then builds only
//!   the arm that runs.
//!
//! A node is *stateful* (Lawrence §1.4 of the digest, App. B.7) when it
//! writes or reads mutable memory, prints, calls, allocates or may trap;
//! division by a non-zero constant cannot trap (`MIN / -1` wraps), so it
//! is pure.

use smallvec::smallvec;

use crate::ir::{BinaryOp, Cmp, InstKind, SrcLoc, Type, UnaryOp, Value};

use super::graph::{Graph, Node, NodeData, Op, Owner, Port, Ports, Region, Sort, Sorts, Tail};

/// The kind with its operands replaced by placeholders, the key of a node.
pub fn template(kind: &InstKind) -> InstKind {
    let mut k = kind.clone();
    k.for_each_arg_mut(|v| *v = Value::from_u32(0));
    k
}

/// Whether an instruction must be threaded on the state: it has an effect,
/// reads mutable memory, or may trap (given which operands are constants).
pub fn is_stateful(kind: &InstKind, const_of: impl Fn(usize) -> Option<i64>) -> bool {
    match kind {
        InstKind::Binary(BinaryOp::IDiv | BinaryOp::IRem, _, _) => {
            // Division by a known non-zero divisor cannot trap
            // (`MIN / -1` wraps).
            !matches!(const_of(1), Some(d) if d != 0)
        }
        InstKind::IConst(_)
        | InstKind::FConst(_)
        | InstKind::BConst(_)
        | InstKind::SConst(_)
        | InstKind::Copy(_)
        | InstKind::Unary(..)
        | InstKind::Binary(..)
        | InstKind::StrLen(_)
        | InstKind::StrCmp(..) => false,
        _ => true,
    }
}

impl Graph {
    fn push_node(
        &mut self,
        op: Op,
        inputs: Ports,
        outputs: Sorts,
        region: Region,
        loc: SrcLoc,
    ) -> Node {
        let scope = if matches!(op, Op::Simple(_)) && !matches!(outputs.last(), Some(Sort::State)) {
            let mut s = self.root;
            for p in &inputs {
                s = self.deeper(s, self.nodes[p.node].scope);
            }
            s
        } else {
            region
        };
        self.nodes.push(NodeData {
            op,
            inputs,
            outputs,
            region,
            scope,
            loc,
        })
    }

    /// A pure node (folded and hash-consed). `kind` is a [`template`].
    pub fn pure(
        &mut self,
        region: Region,
        kind: InstKind,
        mut inputs: Ports,
        ty: Type,
        loc: SrcLoc,
    ) -> Port {
        if let InstKind::Copy(_) = kind {
            return inputs[0];
        }
        if let Some(p) = self.fold(region, &kind, &inputs, ty) {
            return p;
        }
        if let InstKind::Binary(op, ..) = kind {
            let commutative = op.commutes();
            // Operands in a fixed order so `a+b` and `b+a` meet; a
            // constant goes last, where the code generators expect an
            // immediate (and where the `-O1` passes put it).
            let key = |g: &Graph, p: Port| (g.const_int(p).is_some(), p);
            if commutative && key(self, inputs[1]) < key(self, inputs[0]) {
                inputs.swap(0, 1);
            }
        }
        let key = (kind, inputs, ty);
        if let Some(&n) = self.cons.get(&key) {
            return Port { node: n, index: 0 };
        }
        let (kind, inputs, ty) = key.clone();
        let n = self.push_node(
            Op::Simple(kind),
            inputs,
            smallvec![Sort::Val(ty)],
            region,
            loc,
        );
        self.cons.insert(key, n);
        Port { node: n, index: 0 }
    }

    /// A constant node.
    pub fn constant(&mut self, kind: InstKind, ty: Type) -> Port {
        let root = self.root;
        self.pure(root, kind, Ports::new(), ty, SrcLoc::NONE)
    }

    /// A stateful node: `inputs` are the value operands, `state` the state
    /// it runs in. Returns its value (unless `ty` is `Unit`) and the next state.
    pub fn stateful(
        &mut self,
        region: Region,
        kind: InstKind,
        mut inputs: Ports,
        state: Port,
        ty: Type,
        loc: SrcLoc,
    ) -> (Option<Port>, Port) {
        inputs.push(state);
        let mut outputs = Sorts::new();
        if ty != Type::Unit {
            outputs.push(Sort::Val(ty));
        }
        outputs.push(Sort::State);
        let has_val = ty != Type::Unit;
        let n = self.push_node(Op::Simple(kind), inputs, outputs, region, loc);
        let val = has_val.then_some(Port { node: n, index: 0 });
        (
            val,
            Port {
                node: n,
                index: has_val as u32,
            },
        )
    }

    /// Starts a γ-node in `region` on `pred` with one arm per key plus a
    /// default arm; the caller fills the arms and calls [`Graph::finish_gamma`].
    pub fn begin_gamma(
        &mut self,
        region: Region,
        pred: Port,
        state: Port,
        keys: Vec<i64>,
        loc: SrcLoc,
    ) -> Node {
        let g = self.push_node(
            Op::Gamma {
                keys: keys.clone(),
                arms: Vec::new(),
            },
            smallvec![pred, state],
            Sorts::new(),
            region,
            loc,
        );
        let arms = (0..=keys.len() as u32)
            .map(|i| self.new_region(Owner::Arm(g, i), Some(region), &[]))
            .collect();
        if let Op::Gamma { arms: a, .. } = &mut self.nodes[g].op {
            *a = arms;
        }
        g
    }

    /// The arms of γ-node `g`.
    pub fn arms(&self, g: Node) -> &[Region] {
        match &self.nodes[g].op {
            Op::Gamma { arms, .. } | Op::Theta { exits: arms, .. } => arms,
            _ => &[],
        }
    }

    /// Completes γ-node `g` whose arms all end in [`Tail::Yield`] of values
    /// of types `tys` (then the state). Returns the γ's values and state,
    /// folding `γ(p, x, x) → x` per component.
    ///
    /// Also completes a θ-node whose exit regions yield to a join (the
    /// exits are its arms, see [`super::lift`]): its values fold the same
    /// way, and its state output always stays, since the loop itself is
    /// on the state.
    pub fn finish_gamma(&mut self, g: Node, tys: &[Type]) -> (Vec<Port>, Port) {
        let arms = self.arms(g).to_vec();
        let region = self.nodes[g].region;
        let depth = self.regions[region].depth;
        // Every place where an arm falls through to the join, with the
        // arm's own state: an arm may reach the join through loop exits.
        let mut leaves: Vec<(Region, Port)> = Vec::new();
        for &a in &arms {
            let s = self.region_state(a);
            for l in self.yield_leaves(a) {
                leaves.push((l, s));
            }
        }
        let yields: Vec<Vec<Port>> = leaves
            .iter()
            .map(|&(l, _)| match &self.regions[l].tail {
                Tail::Yield(ps) => ps.clone(),
                _ => unreachable!("yield_leaves returns yields"),
            })
            .collect();
        let n = tys.len() + 1;
        let mut result: Vec<Option<Port>> = vec![None; n];
        for (i, slot) in result.iter_mut().enumerate() {
            let Some(first) = yields.first().map(|y| y[i]) else {
                break;
            };
            let same = yields.iter().all(|y| y[i] == first);
            if i < tys.len() {
                // The shared port must be visible outside the arms.
                if same && self.regions[self.nodes[first.node].scope].depth <= depth {
                    *slot = Some(first);
                }
            } else if matches!(self.nodes[g].op, Op::Gamma { .. })
                && yields.iter().zip(&leaves).all(|(y, &(_, s))| y[i] == s)
            {
                *slot = Some(self.nodes[g].inputs[1]);
            }
        }
        let kept: Vec<usize> = (0..n).filter(|&i| result[i].is_none()).collect();
        if !kept.is_empty() {
            // Keep the state output whenever any component survives, so the
            // γ stays on the state chain and its outputs keep a fixed shape.
            let mut kept = kept;
            if *kept.last().unwrap() != n - 1 {
                kept.push(n - 1);
                result[n - 1] = None;
            }
            for (&(l, _), y) in leaves.iter().zip(&yields) {
                self.regions[l].tail = Tail::Yield(kept.iter().map(|&i| y[i]).collect());
            }
            let outputs = kept
                .iter()
                .map(|&i| {
                    if i < tys.len() {
                        Sort::Val(tys[i])
                    } else {
                        Sort::State
                    }
                })
                .collect();
            self.nodes[g].outputs = outputs;
            for (o, &i) in kept.iter().enumerate() {
                result[i] = Some(Port {
                    node: g,
                    index: o as u32,
                });
            }
        }
        let mut ports: Vec<Port> = result.into_iter().map(|p| p.expect("filled")).collect();
        let state = ports.pop().expect("state");
        (ports, state)
    }

    /// The regions under `r` (through branch arms and loop exits, not loop
    /// bodies) whose tail falls through to the enclosing γ's join.
    pub fn yield_leaves(&self, r: Region) -> Vec<Region> {
        let mut out = Vec::new();
        let mut stack = vec![r];
        while let Some(r) = stack.pop() {
            match &self.regions[r].tail {
                Tail::Yield(_) => out.push(r),
                Tail::Switch { arms, .. } => stack.extend(arms.iter().rev()),
                Tail::Loop(t) => stack.extend(self.arms(*t).iter().rev()),
                _ => {}
            }
        }
        out
    }

    /// Constant folding and algebraic identities on a pure node.
    fn fold(
        &mut self,
        _region: Region,
        kind: &InstKind,
        inputs: &[Port],
        ty: Type,
    ) -> Option<Port> {
        let int = |g: &Graph, i: usize| match &g.nodes[inputs[i].node].op {
            Op::Simple(InstKind::IConst(k)) => Some(*k),
            _ => None,
        };
        let boolean = |g: &Graph, i: usize| match &g.nodes[inputs[i].node].op {
            Op::Simple(InstKind::BConst(k)) => Some(*k),
            _ => None,
        };
        let float = |g: &Graph, i: usize| match &g.nodes[inputs[i].node].op {
            Op::Simple(InstKind::FConst(k)) => Some(f64::from_bits(*k)),
            _ => None,
        };
        let ic = |g: &mut Graph, k: i64| g.constant(InstKind::IConst(k), Type::Int);
        let bc = |g: &mut Graph, k: bool| g.constant(InstKind::BConst(k), Type::Bool);
        let fc = |g: &mut Graph, k: f64| g.constant(InstKind::FConst(k.to_bits()), Type::Float);
        match *kind {
            InstKind::Unary(op, _) => match op {
                UnaryOp::INeg => int(self, 0).map(|a| ic(self, a.wrapping_neg())),
                UnaryOp::IAbs => int(self, 0).map(|a| ic(self, a.wrapping_abs())),
                UnaryOp::IToF => int(self, 0).map(|a| fc(self, a as f64)),
                UnaryOp::FNeg => float(self, 0).map(|a| fc(self, -a)),
                UnaryOp::BNot => {
                    if let Some(a) = boolean(self, 0) {
                        return Some(bc(self, !a));
                    }
                    // !!x → x
                    let inner = &self.nodes[inputs[0].node];
                    match inner.op {
                        Op::Simple(InstKind::Unary(UnaryOp::BNot, _)) => Some(inner.inputs[0]),
                        _ => None,
                    }
                }
                _ => None,
            },
            InstKind::Binary(op, _, _) => {
                let (a, b) = (inputs[0], inputs[1]);
                if let (Some(x), Some(y)) = (int(self, 0), int(self, 1)) {
                    let sh = (y & 63) as u32;
                    let r = match op {
                        BinaryOp::IAdd => Some(x.wrapping_add(y)),
                        BinaryOp::ISub => Some(x.wrapping_sub(y)),
                        BinaryOp::IMul => Some(x.wrapping_mul(y)),
                        BinaryOp::IDiv if y != 0 => Some(x.wrapping_div(y)),
                        BinaryOp::IRem if y != 0 => Some(x.wrapping_rem(y)),
                        BinaryOp::IAnd => Some(x & y),
                        BinaryOp::IOr => Some(x | y),
                        BinaryOp::IXor => Some(x ^ y),
                        BinaryOp::IShl => Some(x.wrapping_shl(sh)),
                        BinaryOp::IShr => Some(x.wrapping_shr(sh)),
                        BinaryOp::IMin => Some(x.min(y)),
                        BinaryOp::IMax => Some(x.max(y)),
                        _ => None,
                    };
                    if let Some(r) = r {
                        return Some(ic(self, r));
                    }
                    if let BinaryOp::ICmp(c) = op {
                        return Some(bc(self, c.holds(x.cmp(&y))));
                    }
                }
                if let (Some(x), Some(y)) = (boolean(self, 0), boolean(self, 1)) {
                    if let BinaryOp::BCmp(c) = op {
                        return Some(bc(self, c.holds(x.cmp(&y))));
                    }
                }
                if let (Some(x), Some(y)) = (float(self, 0), float(self, 1)) {
                    let r = match op {
                        BinaryOp::FAdd => Some(x + y),
                        BinaryOp::FSub => Some(x - y),
                        BinaryOp::FMul => Some(x * y),
                        BinaryOp::FDiv => Some(x / y),
                        _ => None,
                    };
                    if let Some(r) = r {
                        return Some(fc(self, r));
                    }
                    if let BinaryOp::FCmp(c) = op {
                        return Some(bc(self, c.eval(x, y)));
                    }
                }
                let (ka, kb) = (int(self, 0), int(self, 1));
                match op {
                    BinaryOp::IAdd | BinaryOp::IOr | BinaryOp::IXor if kb == Some(0) => Some(a),
                    BinaryOp::IAdd | BinaryOp::IOr | BinaryOp::IXor if ka == Some(0) => Some(b),
                    BinaryOp::ISub | BinaryOp::IShl | BinaryOp::IShr if kb == Some(0) => Some(a),
                    BinaryOp::IMul | BinaryOp::IDiv if kb == Some(1) => Some(a),
                    BinaryOp::IMul if ka == Some(1) => Some(b),
                    BinaryOp::IMul | BinaryOp::IAnd if kb == Some(0) || ka == Some(0) => {
                        Some(ic(self, 0))
                    }
                    BinaryOp::ISub | BinaryOp::IXor if a == b => Some(ic(self, 0)),
                    BinaryOp::IAnd | BinaryOp::IOr | BinaryOp::IMin | BinaryOp::IMax if a == b => {
                        Some(a)
                    }
                    BinaryOp::ICmp(c) | BinaryOp::BCmp(c) if a == b => {
                        Some(bc(self, matches!(c, Cmp::Eq | Cmp::Le | Cmp::Ge)))
                    }
                    BinaryOp::BCmp(Cmp::Eq) if boolean(self, 1) == Some(true) => Some(a),
                    BinaryOp::BCmp(Cmp::Ne) if boolean(self, 1) == Some(false) => Some(a),
                    _ => None,
                }
                .filter(|p| self.ty(*p) == ty)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(g: &mut Graph, a: Port, b: Port) -> Port {
        let r = g.root;
        g.pure(
            r,
            template(&InstKind::Binary(
                BinaryOp::IAdd,
                Value::from_u32(0),
                Value::from_u32(0),
            )),
            smallvec![a, b],
            Type::Int,
            SrcLoc::NONE,
        )
    }

    #[test]
    fn folds_constants_and_identities() {
        let mut g = Graph::new(&[Type::Int, Type::Int]);
        let args = g.region_args(g.root);
        let two = g.constant(InstKind::IConst(2), Type::Int);
        let three = g.constant(InstKind::IConst(3), Type::Int);
        let five = add(&mut g, two, three);
        assert_eq!(g.const_int(five), Some(5));
        let zero = g.constant(InstKind::IConst(0), Type::Int);
        assert_eq!(add(&mut g, args[0], zero), args[0]);
        assert_eq!(add(&mut g, zero, args[1]), args[1]);
    }

    #[test]
    fn hash_conses_commutative_operands() {
        let mut g = Graph::new(&[Type::Int, Type::Int]);
        let args = g.region_args(g.root);
        let x = add(&mut g, args[0], args[1]);
        let y = add(&mut g, args[1], args[0]);
        assert_eq!(x, y);
        let before = g.nodes.len();
        let _ = add(&mut g, args[0], args[1]);
        assert_eq!(g.nodes.len(), before);
    }

    #[test]
    fn division_by_zero_is_not_folded_and_stays_stateful() {
        let kind = InstKind::Binary(BinaryOp::IDiv, Value::from_u32(0), Value::from_u32(0));
        assert!(is_stateful(&kind, |_| Some(0)));
        assert!(is_stateful(&kind, |_| None));
        assert!(!is_stateful(&kind, |_| Some(7)));
    }

    #[test]
    fn gamma_of_equal_arms_folds() {
        let mut g = Graph::new(&[Type::Bool, Type::Int]);
        let args = g.region_args(g.root);
        let root = g.root;
        let gm = g.begin_gamma(root, args[0], args[2], vec![1], SrcLoc::NONE);
        for a in g.arms(gm).to_vec() {
            let s = g.region_state(a);
            g.regions[a].tail = Tail::Yield(vec![args[1], s]);
        }
        let (vals, state) = g.finish_gamma(gm, &[Type::Int]);
        assert_eq!(vals, vec![args[1]]);
        assert_eq!(state, args[2]);
    }

    #[test]
    fn gamma_with_distinct_arms_stays() {
        let mut g = Graph::new(&[Type::Bool, Type::Int]);
        let args = g.region_args(g.root);
        let root = g.root;
        let one = g.constant(InstKind::IConst(1), Type::Int);
        let gm = g.begin_gamma(root, args[0], args[2], vec![1], SrcLoc::NONE);
        let arms = g.arms(gm).to_vec();
        for (i, &a) in arms.iter().enumerate() {
            let s = g.region_state(a);
            let v = if i == 0 { args[1] } else { one };
            g.regions[a].tail = Tail::Yield(vec![v, s]);
        }
        let (vals, state) = g.finish_gamma(gm, &[Type::Int]);
        assert_eq!(vals[0].node, gm);
        assert_eq!(state.node, gm);
    }
}
