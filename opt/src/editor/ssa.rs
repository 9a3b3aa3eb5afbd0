//! SSA reconstruction, `rewrite uses` (Fritz §7.1, Figs. 7.14–7.17), in
//! the shape of Braun et al.'s `readVariable`: given the original
//! definition of a value and extra definitions as block parameters, each
//! listed use is rewritten to the definition reaching it. Blocks with
//! several predecessors get a new parameter (added before recursing, so
//! cycles terminate); afterwards trivial parameters (all arguments the
//! parameter itself or one other value `o`) are replaced by `o` to a
//! fixpoint (§5.4), unless that would break LCSSA.

use rustc_hash::FxHashMap;

use crate::ir::{Block, User, Value, ValueDef};

use super::Editor;

struct Search {
    orig: Value,
    orig_block: Block,
    param_defs: FxHashMap<Block, Value>,
    entry_memo: FxHashMap<Block, Value>,
    created: Vec<(Block, Value)>,
}

impl Editor<'_> {
    /// Rewrites `uses` of `orig` to the reaching definition among `orig`
    /// and the block parameters `defs`. Returns the join parameters that
    /// survived pruning.
    pub(super) fn rewrite_uses(
        &mut self,
        orig: Value,
        defs: &[(Block, Value)],
        uses: &[User],
    ) -> Vec<Value> {
        let Some(orig_block) = self.def_block(orig) else {
            return Vec::new();
        };
        let mut s = Search {
            orig,
            orig_block,
            param_defs: defs.iter().copied().collect(),
            entry_memo: FxHashMap::default(),
            created: Vec::new(),
        };
        let mut done: Vec<User> = Vec::new();
        for &u in uses {
            if done.contains(&u) {
                continue;
            }
            done.push(u);
            let reaching = match u {
                User::Inst(i) => {
                    let Some(b) = self.inst_block(i) else {
                        continue;
                    };
                    self.def_before(&mut s, b)
                }
                User::Term(b) => self.end_def(&mut s, b),
            };
            if reaching == orig {
                continue;
            }
            let swap = |v: &mut Value| {
                if *v == orig {
                    *v = reaching;
                }
            };
            let mut count = 0;
            match u {
                User::Inst(i) => self.func.insts[i].kind.for_each_arg_mut(|v| {
                    if *v == orig {
                        count += 1;
                    }
                    swap(v)
                }),
                User::Term(b) => self.func.blocks[b].term.for_each_arg_mut(|v| {
                    if *v == orig {
                        count += 1;
                    }
                    swap(v)
                }),
            }
            for _ in 0..count {
                self.remove_use(orig, u);
                self.add_use(reaching, u);
            }
        }
        self.prune_trivial(s.created)
    }

    /// The definition reaching a use inside `b` (the use is not preceded
    /// by a definition in `b` unless `b` defines `orig`).
    fn def_before(&mut self, s: &mut Search, b: Block) -> Value {
        if let Some(&p) = s.param_defs.get(&b) {
            return p;
        }
        if b == s.orig_block {
            return s.orig;
        }
        self.entry_def(s, b)
    }

    fn end_def(&mut self, s: &mut Search, b: Block) -> Value {
        if b == s.orig_block {
            return s.orig;
        }
        if let Some(&p) = s.param_defs.get(&b) {
            return p;
        }
        self.entry_def(s, b)
    }

    fn entry_def(&mut self, s: &mut Search, b: Block) -> Value {
        if let Some(&v) = s.entry_memo.get(&b) {
            return v;
        }
        let preds = self.preds(b);
        match preds.as_slice() {
            [] => s.orig,
            [p] => {
                let v = self.end_def(s, *p);
                s.entry_memo.insert(b, v);
                v
            }
            _ => {
                let ty = self.value_type(s.orig);
                let p = self.raw_add_param(b, ty);
                s.entry_memo.insert(b, p);
                s.created.push((b, p));
                for pred in preds {
                    let v = self.end_def(s, pred);
                    self.raw_add_edge_arg(pred, b, v);
                }
                p
            }
        }
    }

    /// Removes created parameters whose arguments are only themselves and
    /// one other value, to a fixpoint.
    fn prune_trivial(&mut self, created: Vec<(Block, Value)>) -> Vec<Value> {
        let mut live: Vec<(Block, Value)> = created;
        loop {
            let mut changed = false;
            let mut i = 0;
            while i < live.len() {
                let (b, p) = live[i];
                let ValueDef::Param(_, idx) = self.func.values[p].def else {
                    i += 1;
                    continue;
                };
                let mut other = None;
                let mut trivial = true;
                for pred in self.preds(b) {
                    for c in self.func.blocks[pred].term.successors() {
                        if c.block != b {
                            continue;
                        }
                        let a = c.args[idx as usize];
                        if a == p || Some(a) == other {
                            continue;
                        }
                        if other.is_none() {
                            other = Some(a);
                        } else {
                            trivial = false;
                        }
                    }
                }
                let Some(o) = other.filter(|_| trivial) else {
                    i += 1;
                    continue;
                };
                let users: Vec<User> = self.uses(p).to_vec();
                let ok = users
                    .iter()
                    .all(|&u| self.user_block(u).is_some_and(|ub| self.lcssa_ok(o, ub)));
                if !ok {
                    i += 1;
                    continue;
                }
                self.raw_replace_all_uses(p, o);
                // The self-arguments became `o`; drop the parameter.
                if self.is_unused(p) {
                    self.raw_remove_block_param(b, idx as usize);
                } else {
                    i += 1;
                    continue;
                }
                live.swap_remove(i);
                changed = true;
            }
            if !changed {
                break;
            }
        }
        live.into_iter().map(|(_, p)| p).collect()
    }
}
