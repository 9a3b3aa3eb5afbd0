//! Gates as ROBDDs over condition atoms (digest §5.4 "Gates, v2"; the
//! open question of Govereau §8.0.4: "essentially all of the technical
//! difficulties lie in the complex φ-nodes", which syntactic matching
//! misses and SMT solves at a high price).
//!
//! An *atom* is a boolean node that is not a connective (`And`, `Or`,
//! `Not`, `==`/`!=` of booleans, a boolean constant): a comparison, a
//! parameter, an η, a load. Atoms are variables, numbered by their class,
//! so every member of a class is the same variable; an integer comparison
//! and its complement (`a < b` and `b <= a`, both present in the graph)
//! are one variable with two polarities. The [`Bdd`] of a gate is then its
//! propositional meaning over the atoms, and two gates with the same
//! diagram are equal at every point of every stream (the connectives are
//! pointwise), whatever their syntax. This is used twice:
//!
//! - **merging** ([`super::rules::Rules::merge_gates`]): gates with equal
//!   diagrams are put in one class, a constant diagram becomes the
//!   constant, a literal becomes its atom. Path conditions that differ
//!   only by the dominator they were computed from (jump threading) or by
//!   the shape of a short-circuit then compare equal;
//! - **η at a loop exit** (rule R4): `η_d(c, x)` is `x` at the iteration
//!   where `c` is false, and η commutes with the connectives, so its
//!   diagram is that of `x ↓ ¬c` (the generalized cofactor, which depends
//!   only on `x` where `¬c`) with every variable `v` renamed to the *exit
//!   variable* `η_d(c, v)`. So `η_d(c, x)` is `true` when `¬c ⇒ x` (the
//!   exit test of a loop inlined into another loop), and the exits of one
//!   loop split over several blocks (`η(c, x1) ∨ η(c, x2)`) combine. A
//!   variable `v` invariant in the loop (varying with no loop of depth
//!   `≥ d`) is not renamed: `η_d(c, v) = v` (R4's η-invariance, Govereau
//!   §2.4 rule 2.9), so `η_d(c, flag ∧ x)` and `flag ∧ η_d(c, x)` (the
//!   exit of `while flag && i < n` before and after `unroll` gives each
//!   copy its own exit edge) share the variable `flag`. Soundness: at
//!   the exit tick `¬c` holds, where `x ↓ ¬c` agrees with `x`; its atoms
//!   there are the exit variables, and the invariant ones their own value.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::bdd::{Bdd, FALSE, TRUE};
use super::graph::{Graph, Id, Op};
use super::refine::Classes;
use super::rules::Depths;
use crate::ir::{BinaryOp, Cmp, Type};

/// Most diagram nodes per round.
const LIMIT: usize = 1 << 16;

/// Bits of a variable below its depth band ([`Vars`]).
const DEPTH_SHIFT: u32 = 24;
/// The ranks of one band.
const RANK_MASK: u32 = (1 << DEPTH_SHIFT) - 1;
/// The deepest band: deeper atoms share it (only canonicity past that
/// nesting suffers, not soundness).
const DEEPEST: u32 = 255;

/// The variables of one round, in an order that does not depend on the
/// order the gates were visited in where R4's exit rule can tell:
///
/// - **By depth first, shallowest on top.** A variable is in the band of
///   its depth (an exit variable of a loop of depth `d` in band `d - 1`,
///   just outside it), so a variable invariant in a loop of depth `d` is
///   tested before every variable that varies in it. The generalized
///   cofactor of the exit rule then keeps an invariant atom as itself
///   (`flag ↓ ¬c` is `flag` when `flag` sits above every varying variable
///   of `c`), and `η_d(c, flag ∧ x)` and `flag ∧ η_d(c, x)` get one
///   diagram. (Numbered in the order met, this held only when the
///   invariant atoms happened to be met first.)
/// - **Within band 0** (atoms outside every loop, never renamed by the
///   exit rule) a variable met later is tested earlier, so a path
///   condition that extends an earlier one by a later literal (an `else
///   if` or `&&` chain, [`Graph::extension`]) is one node on top of the
///   earlier diagram, which it shares: `n` path conditions cost `n`
///   diagram nodes, not `n²/2`.
/// - **Within a loop's band** variables keep the order met: the cofactor
///   is canonical for a fixed order only, and the exits of a threaded
///   `&&` loop condition (corpus `mergesort` `sort_strs`, `jt`'s link)
///   compare equal in this order, not in the reversed one.
#[derive(Default)]
struct Vars {
    /// What each variable stands for, by band and rank.
    atoms: Vec<Vec<Atom>>,
}

impl Vars {
    /// A new variable for `atom` in the band of `depth`.
    fn push(&mut self, depth: u32, atom: Atom) -> Option<u32> {
        let band = depth.min(DEEPEST);
        if self.atoms.len() <= band as usize {
            self.atoms.resize_with(band as usize + 1, Vec::new);
        }
        let list = &mut self.atoms[band as usize];
        // Below `RANK_MASK`: band 0 counts down from `RANK_MASK - 1`, and
        // the deepest band's last rank stays below `u32::MAX`, the
        // terminals' variable.
        let rank = u32::try_from(list.len()).ok().filter(|&r| r < RANK_MASK)?;
        list.push(atom);
        Some(match band {
            0 => RANK_MASK - 1 - rank,
            _ => band << DEPTH_SHIFT | rank,
        })
    }

    /// What variable `v` stands for.
    fn get(&self, v: u32) -> Atom {
        let band = v >> DEPTH_SHIFT;
        let rank = match band {
            0 => RANK_MASK - 1 - v,
            _ => v & RANK_MASK,
        };
        self.atoms[band as usize][rank as usize]
    }
}

/// What a variable stands for.
#[derive(Copy, Clone, Debug)]
pub enum Atom {
    /// A boolean node (positive polarity).
    Node(Id),
    /// `η_d(c, v)` for the loop depth `d`, the exit condition `c` and the
    /// variable `v`.
    Exit(u16, Id, u32),
}

/// Key of a variable: a class, a node built this round, or an exit
/// variable `(d, class of c, v)`.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
enum Key {
    Class(u32),
    Fresh(u32),
    Exit(u16, u32, u32),
}

/// The diagrams of the gates of one round.
pub struct Gates {
    bdd: Bdd,
    /// Variable of each atom key, with its polarity.
    vars: FxHashMap<Key, (u32, bool)>,
    /// What each variable stands for.
    atoms: Vars,
    /// The class of the complement of each atom class, when present.
    partner: FxHashMap<u32, u32>,
    memo: FxHashMap<Key, Option<u32>>,
}

impl Gates {
    /// Prepares the diagrams of the round with classes `cls`: pairs the
    /// atoms with their complements.
    pub fn new(g: &Graph, cls: &Classes) -> Gates {
        // Complements by the classes of the operands (the hash-consing
        // table is stale once rewrites substituted arguments).
        let sig = |n: Id| -> Option<(u8, u32, u32)> {
            let node = g.node(n);
            let (x, y) = (*node.args.first()?, *node.args.get(1)?);
            let (cx, cy) = (cls.class[x.index()], cls.class[y.index()]);
            match node.op {
                Op::Bin(BinaryOp::ICmp(Cmp::Lt)) => Some((0, cx, cy)),
                Op::Bin(BinaryOp::ICmp(Cmp::Le)) => Some((1, cx, cy)),
                Op::Bin(BinaryOp::ICmp(Cmp::Eq)) => Some((2, cx.min(cy), cx.max(cy))),
                Op::Bin(BinaryOp::ICmp(Cmp::Ne)) => Some((3, cx.min(cy), cx.max(cy))),
                Op::StrCmp(Cmp::Lt) => Some((4, cx, cy)),
                Op::StrCmp(Cmp::Le) => Some((5, cx, cy)),
                _ => None,
            }
        };
        let complement = |(k, x, y): (u8, u32, u32)| match k {
            0 => (1, y, x),
            1 => (0, y, x),
            2 => (3, x, y),
            3 => (2, x, y),
            4 => (5, y, x),
            _ => (4, y, x),
        };
        let mut by_sig: FxHashMap<(u8, u32, u32), u32> = FxHashMap::default();
        for &n in &cls.reached {
            if let Some(k) = sig(n) {
                by_sig.entry(k).or_insert(cls.of(n));
            }
        }
        let mut partner = FxHashMap::default();
        for (&k, &c) in &by_sig {
            if let Some(&d) = by_sig.get(&complement(k)) {
                if c != d {
                    partner.insert(c, d);
                }
            }
        }
        let edges: usize = cls.reached.iter().map(|&n| g.node(n).args.len()).sum();
        Gates {
            bdd: Bdd::new(LIMIT.max(4 * edges)),
            vars: FxHashMap::default(),
            atoms: Vars::default(),
            partner,
            memo: FxHashMap::default(),
        }
    }

    /// The diagram store.
    pub fn bdd(&mut self) -> &mut Bdd {
        &mut self.bdd
    }

    /// What variable `v` stands for.
    pub fn atom(&self, v: u32) -> Atom {
        self.atoms.get(v)
    }

    /// The diagram of boolean node `id` (`None` when it is not boolean or
    /// the diagram grew too large).
    pub fn of(&mut self, g: &Graph, cls: &Classes, vd: &Depths, id: Id) -> Option<u32> {
        let n = g.node(id);
        if n.ty != Type::Bool {
            return None;
        }
        let class = cls.class.get(id.index()).copied().unwrap_or(u32::MAX);
        let key = if class == u32::MAX {
            Key::Fresh(id.0)
        } else {
            Key::Class(class)
        };
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        // Cycles only pass through μ, which is an atom, so the recursion
        // ends; the placeholder keeps a malformed graph from looping.
        self.memo.insert(key, None);
        let r = self.compute(g, cls, vd, id, key, class);
        self.memo.insert(key, r);
        r
    }

    fn compute(
        &mut self,
        g: &Graph,
        cls: &Classes,
        vd: &Depths,
        id: Id,
        key: Key,
        class: u32,
    ) -> Option<u32> {
        let n = g.node(id).clone();
        if let Op::Eta(d) = n.op {
            // Computed once: the diagram of the exit value, else an atom.
            if let Some(r) = self.exit(g, cls, vd, d, n.args[0], n.args[1]) {
                return Some(r);
            }
        }
        match n.op {
            Op::Const(k) => Some(if k != 0 { TRUE } else { FALSE }),
            Op::Not => {
                let a = self.of(g, cls, vd, n.args[0])?;
                self.bdd.not(a)
            }
            Op::And | Op::Or => {
                let mut parts = SmallVec::<[u32; 8]>::with_capacity(n.args.len());
                match g.extension(id) {
                    // The diagram of the conjunction it extends and of
                    // the new arguments only.
                    Some((base, fresh)) => {
                        parts.push(self.of(g, cls, vd, base)?);
                        for a in fresh {
                            parts.push(self.of(g, cls, vd, a)?);
                        }
                    }
                    None => {
                        for &a in &n.args {
                            parts.push(self.of(g, cls, vd, a)?);
                        }
                    }
                }
                self.bdd.junction(n.op == Op::And, &mut parts)
            }
            Op::Bin(BinaryOp::BCmp(cc @ (Cmp::Eq | Cmp::Ne))) => {
                let a = self.of(g, cls, vd, n.args[0])?;
                let b = self.of(g, cls, vd, n.args[1])?;
                let both = self.bdd.and(a, b)?;
                let (na, nb) = (self.bdd.not(a)?, self.bdd.not(b)?);
                let neither = self.bdd.and(na, nb)?;
                let eq = self.bdd.or(both, neither)?;
                if cc == Cmp::Eq {
                    Some(eq)
                } else {
                    self.bdd.not(eq)
                }
            }
            _ => {
                let (var, positive) = self.var(g, vd, id, key, class)?;
                let x = self.bdd.var(var)?;
                if positive {
                    Some(x)
                } else {
                    self.bdd.not(x)
                }
            }
        }
    }

    /// The variable of an atom: its own, or its complement's negated.
    fn var(&mut self, g: &Graph, vd: &Depths, id: Id, key: Key, class: u32) -> Option<(u32, bool)> {
        if let Some(&v) = self.vars.get(&key) {
            return Some(v);
        }
        if class != u32::MAX {
            if let Some(&p) = self.partner.get(&class) {
                if let Some(&(v, pos)) = self.vars.get(&Key::Class(p)) {
                    let mine = (v, !pos);
                    self.vars.insert(key, mine);
                    return Some(mine);
                }
            }
        }
        let v = self.atoms.push(vd.of(g, id).into(), Atom::Node(id))?;
        self.vars.insert(key, (v, true));
        Some((v, true))
    }

    /// The diagram of `η_d(c, x)`: `x ↓ ¬c` over exit variables.
    pub fn exit(
        &mut self,
        g: &Graph,
        cls: &Classes,
        vd: &Depths,
        d: u16,
        c: Id,
        x: Id,
    ) -> Option<u32> {
        let bx = self.of(g, cls, vd, x)?;
        let bc = self.of(g, cls, vd, c)?;
        let nc = self.bdd.not(bc)?;
        if nc == FALSE {
            // The loop never exits: no value (keep the η opaque).
            return None;
        }
        let r = self.bdd.constrain(bx, nc)?;
        let ckey = match cls.class.get(c.index()) {
            Some(&k) if k != u32::MAX => k,
            _ => return None,
        };
        let Gates {
            bdd, vars, atoms, ..
        } = self;
        bdd.rename(r, &mut |v| {
            // An atom invariant in the loop is its own exit value (R4's
            // η-invariance): it keeps its variable, so the diagram of the
            // exit of `while flag && i < n` relates to `flag` tested
            // outside the loop.
            let invariant = match atoms.get(v) {
                Atom::Node(id) => vd.of(g, id) < d,
                Atom::Exit(e, _, _) => e <= d,
            };
            if invariant {
                return Some(v);
            }
            let key = Key::Exit(d, ckey, v);
            if let Some(&(e, _)) = vars.get(&key) {
                return Some(e);
            }
            // The exit value lives just outside the loop of depth `d`.
            let e = atoms.push(u32::from(d).saturating_sub(1), Atom::Exit(d, c, v))?;
            vars.insert(key, (e, true));
            Some(e)
        })
    }
}
