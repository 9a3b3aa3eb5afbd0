//! Use lists: for every value, the instructions and terminators that use it.
//!
//! Computed from the blocks in a function's layout (detached instructions are
//! not users). Each user appears once in a value's list even when it uses the
//! value several times (`iadd v1, v1`), and users are listed in layout order
//! (a block's instructions, then its terminator). Values outside the value
//! arena (malformed IR) are ignored.

use cranelift_entity::SecondaryMap;

use super::entities::{Block, Inst, Value};
use super::function::Function;

/// Something that uses values: an instruction, or the terminator of a block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum User {
    /// An instruction operand.
    Inst(Inst),
    /// The terminator of this block (scrutinee, edge argument, returned value).
    Term(Block),
}

/// The users of every value of a function.
#[derive(Clone, Debug, Default)]
pub struct UseLists {
    uses: SecondaryMap<Value, Vec<User>>,
}

impl UseLists {
    /// Computes the use lists of `func`.
    pub fn compute(func: &Function) -> UseLists {
        let mut lists = UseLists::default();
        for &b in &func.layout {
            let Some(bd) = func.blocks.get(b) else {
                continue;
            };
            for &inst in &bd.insts {
                if let Some(data) = func.insts.get(inst) {
                    data.kind
                        .for_each_arg(|v| lists.add(func, v, User::Inst(inst)));
                }
            }
            bd.term.for_each_arg(|v| lists.add(func, v, User::Term(b)));
        }
        lists
    }

    /// Records `user` as a user of `v` unless it is already the last one.
    /// Values outside the arena (malformed IR) are skipped.
    fn add(&mut self, func: &Function, v: Value, user: User) {
        if !func.values.is_valid(v) {
            return;
        }
        let list = &mut self.uses[v];
        if list.last() != Some(&user) {
            list.push(user);
        }
    }

    /// The users of `v`, each once, in layout order.
    pub fn uses(&self, v: Value) -> &[User] {
        self.uses.get(v).map_or(&[], Vec::as_slice)
    }

    /// Whether `v` has no users.
    pub fn is_unused(&self, v: Value) -> bool {
        self.uses(v).is_empty()
    }

    /// Rewrites every use of `old` in `func` to `new` and updates the lists:
    /// `old`'s users are appended to `new`'s (users that already used `new`
    /// stay listed once) and `old` is left without users.
    pub fn replace_all_uses(&mut self, func: &mut Function, old: Value, new: Value) {
        if old == new {
            return;
        }
        let users = std::mem::take(&mut self.uses[old]);
        let swap = |v: &mut Value| {
            if *v == old {
                *v = new;
            }
        };
        for &user in &users {
            match user {
                User::Inst(inst) => {
                    if let Some(data) = func.insts.get_mut(inst) {
                        data.kind.for_each_arg_mut(swap);
                    }
                }
                User::Term(b) => {
                    if let Some(bd) = func.blocks.get_mut(b) {
                        bd.term.for_each_arg_mut(swap);
                    }
                }
            }
        }
        let target = &mut self.uses[new];
        for user in users {
            if !target.contains(&user) {
                target.push(user);
            }
        }
    }
}
