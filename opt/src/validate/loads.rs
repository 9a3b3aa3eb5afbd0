//! R5, loads (Govereau §2.4 rules 2.10 and 2.11, §2.3.1's memory
//! threading): a load skips the effects on its token chain that cannot
//! change what it reads, a whole loop whose token cycle writes nothing it
//! reads, and a token φ whose branches come down to one token; it is
//! forwarded from a store to the same place and read from the allocation
//! of its object when that fixes the value. The alias oracle
//! ([`Rules::clobbers`]) is the thesis's "alloc results never alias" with
//! Waddle's effects.

use smallvec::SmallVec;

use super::graph::{EffKind, Id, LoadKind, Op};
use super::rules::Rules;
use crate::ir::Type;

/// Nesting of token φ's a load walks through ([`Rules::floor`]).
const PHI_FLOOR_FUEL: u8 = 4;

impl Rules<'_> {
    /// R5: a load skips effects that cannot change what it reads and is
    /// forwarded from a store to the same place.
    pub(super) fn load(&mut self, kind: LoadKind, ty: Type, a: &[Id]) -> Option<Id> {
        let (addr, tok) = a.split_at(a.len() - 1);
        let start = tok[0];
        if let Some(v) = self.read_below_creation(kind, addr, start) {
            return Some(v);
        }
        let mut t = self.floor(kind, addr, start, PHI_FLOOR_FUEL);
        let tn = self.g.node(t).clone();
        if tn.op == Op::Proj(1) {
            let e = self.r(tn.args[0]);
            let en = self.g.node(e).clone();
            if let Op::Eff(k) = en.op {
                let ea: Vec<Id> = en.args.iter().map(|&x| self.r(x)).collect();
                if let Some(v) = self.forward(kind, addr, k, &ea) {
                    return Some(v);
                }
                if k.allocates() && matches!(kind, LoadKind::Elem | LoadKind::Len) {
                    // Reading the object this effect creates.
                    let fresh = self.g.node(self.r(addr[0]));
                    if fresh.op == Op::Proj(0) && self.same(fresh.args[0], e) {
                        if let Some(v) = self.read_fresh(kind, addr, k, &ea) {
                            return Some(v);
                        }
                        // Nothing known of the fresh object: the read goes
                        // on below its creation, where a read made before
                        // its address was known to be this object went.
                        t = self.floor(kind, addr, ea[ea.len() - 1], PHI_FLOOR_FUEL);
                    }
                }
            }
        }
        if t == start {
            return None;
        }
        let mut args = addr.to_vec();
        args.push(t);
        Some(self.g.intern(Op::Load(kind), ty, args))
    }

    /// A read of the object that the allocation `e` creates at a token
    /// `start` below `e` on the token chain: such a read was made before
    /// its address was known to be `e`'s object and walked past `e`, since
    /// no effect below `e` can change an object that does not exist yet
    /// (its reads there are its initial state, which `e` alone decides). It
    /// is the fresh read of `e`, as a read above `e` would be.
    fn read_below_creation(&mut self, kind: LoadKind, addr: &[Id], start: Id) -> Option<Id> {
        if !matches!(kind, LoadKind::Elem | LoadKind::Len) {
            return None;
        }
        let on = self.g.node(self.r(addr[0]));
        if on.op != Op::Proj(0) {
            return None;
        }
        let e = self.r(on.args[0]);
        let en = self.g.node(e).clone();
        let Op::Eff(k) = en.op else { return None };
        if !k.allocates() {
            return None;
        }
        let ea: Vec<Id> = en.args.iter().map(|&x| self.r(x)).collect();
        let start = self.r(start);
        let mut t = ea[ea.len() - 1];
        for _ in 0..512 {
            if t == start {
                return self.read_fresh(kind, addr, k, &ea);
            }
            let tn = self.g.node(t);
            t = match tn.op {
                Op::Proj(1) => {
                    let x = self.g.node(self.r(tn.args[0]));
                    match x.op {
                        Op::Eff(_) => self.r(x.args[x.args.len() - 1]),
                        _ => return None,
                    }
                }
                Op::Mu(_) => self.r(tn.args[0]),
                _ => return None,
            };
        }
        None
    }

    /// The lowest token on the chain below `t` that a `kind` load of
    /// `addr` reads alike: the walk skips effects that cannot change what
    /// it reads, a whole loop whose token cycle writes nothing it reads,
    /// and a token φ whose branches all come down to one token (each
    /// branch walked with `fuel - 1`). It stops at a store that forwards,
    /// at the allocation of the object read, at an effect that may change
    /// it, and at anything else.
    ///
    /// The φ step is the φ's pointwise reading (Govereau §4.0.3): on every
    /// tick a gate `g_j` holds the φ is `t_j`, and the load at `t_j` equals
    /// the load at the common floor; a tick where no gate holds does not
    /// reach the φ's block (the gates of a built φ cover its block, as R3
    /// and R10 assume), so nothing observes the load there.
    ///
    /// Memoized per round ([`Rules::floors`]): the walk reads only nodes
    /// and classes, which do not change during a round (rules add nodes;
    /// the only nodes edited, the μ's R8 and loop doubling make, are
    /// finished before anything loads through them), and the walks from
    /// the branches of nested token φ's meet on the same tokens.
    fn floor(&mut self, kind: LoadKind, addr: &[Id], t: Id, fuel: u8) -> Id {
        let key = (kind, SmallVec::from_slice(addr), t, fuel);
        if let Some(&f) = self.floors.get(&key) {
            return f;
        }
        let f = self.floor_uncached(kind, addr, t, fuel);
        self.floors.insert(key, f);
        f
    }

    fn floor_uncached(&mut self, kind: LoadKind, addr: &[Id], t: Id, fuel: u8) -> Id {
        let mut t = self.r(t);
        for _ in 0..10_000 {
            let tn = self.g.node(t).clone();
            match tn.op {
                Op::Proj(1) => {
                    let e = self.r(tn.args[0]);
                    let en = self.g.node(e).clone();
                    let Op::Eff(k) = en.op else { break };
                    let ea: Vec<Id> = en.args.iter().map(|&x| self.r(x)).collect();
                    if self.forward(kind, addr, k, &ea).is_some() {
                        break;
                    }
                    if k.allocates() && matches!(kind, LoadKind::Elem | LoadKind::Len) {
                        let fresh = self.g.node(self.r(addr[0]));
                        if fresh.op == Op::Proj(0) && self.same(fresh.args[0], e) {
                            break;
                        }
                    }
                    if self.clobbers(kind, addr, k, &ea) {
                        break;
                    }
                    t = ea[ea.len() - 1];
                }
                Op::Mu(d) if self.loop_preserves(kind, addr, t, d) => t = self.r(tn.args[0]),
                Op::Phi if fuel > 0 && tn.ty == Type::Unit => {
                    let mut common = None;
                    for c in tn.args.chunks(2) {
                        let f = self.floor(kind, addr, c[1], fuel - 1);
                        match common {
                            None => common = Some(f),
                            Some(x) if x == f => {}
                            Some(_) => return t,
                        }
                    }
                    match common {
                        Some(f) if f != t => t = f,
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        t
    }

    /// The stored value when effect `k` writes exactly what the load reads.
    pub(super) fn forward(&self, kind: LoadKind, addr: &[Id], k: EffKind, ea: &[Id]) -> Option<Id> {
        match (kind, k) {
            (LoadKind::Global(g), EffKind::GlobalSet(h)) if g == h => Some(ea[0]),
            (LoadKind::Elem, EffKind::ArraySet)
                if self.same(addr[0], ea[0]) && self.same(addr[1], ea[1]) =>
            {
                Some(ea[2])
            }
            _ => None,
        }
    }

    /// A load from the array literal that creates its object.
    ///
    /// `len([v; n])` is `n`: the read is after the repeat's token, so the
    /// repeat did not trap, and it traps on every `n < 0`.
    fn read_fresh(&mut self, kind: LoadKind, addr: &[Id], k: EffKind, ea: &[Id]) -> Option<Id> {
        if k == EffKind::ArrayRepeat && kind == LoadKind::Len {
            return Some(ea[1]);
        }
        let EffKind::ArrayLit(_) = k else { return None };
        let elems = &ea[..ea.len() - 1];
        match kind {
            LoadKind::Len => Some(self.g.konst(Type::Int, elems.len() as u64)),
            LoadKind::Elem => {
                let i = self.konst(addr[1])? as i64;
                usize::try_from(i).ok().and_then(|i| elems.get(i).copied())
            }
            LoadKind::Global(_) => None,
        }
    }

    /// Whether `a` and `b` are results of two different allocations.
    fn distinct_objects(&self, a: Id, b: Id) -> bool {
        let fresh = |x: Id| {
            let n = self.g.node(x);
            n.op == Op::Proj(0)
                && matches!(self.g.node(self.r(n.args[0])).op, Op::Eff(k) if k.allocates())
        };
        !self.same(a, b) && fresh(self.r(a)) && fresh(self.r(b))
    }

    /// The alias oracle: whether effect `k` (arguments `ea`) may change
    /// what a `kind` load of `addr` reads.
    pub(super) fn clobbers(&self, kind: LoadKind, addr: &[Id], k: EffKind, ea: &[Id]) -> bool {
        match k {
            EffKind::Call(_) | EffKind::HostCall(_) => true,
            EffKind::GlobalSet(h) => matches!(kind, LoadKind::Global(g) if g == h),
            EffKind::ArraySet => match kind {
                LoadKind::Elem => {
                    let distinct_index = matches!(
                        (self.konst(addr[1]), self.konst(ea[1])),
                        (Some(x), Some(y)) if x != y
                    );
                    !(self.distinct_objects(addr[0], ea[0])
                        || (self.same(addr[0], ea[0]) && distinct_index))
                }
                _ => false,
            },
            EffKind::ArrayPush | EffKind::ArrayPop => match kind {
                LoadKind::Elem | LoadKind::Len => !self.distinct_objects(addr[0], ea[0]),
                LoadKind::Global(_) => false,
            },
            _ => false,
        }
    }
}
