//! Global value numbering over the dominator tree (dominator-based
//! redundancy elimination): a pure instruction that computes the same
//! operation on the same operands as one in a dominating position is
//! replaced by it. Scoped hash table along a pre-order walk of the
//! maintained dominator tree; only instructions without side effects that
//! read no memory take part. A replacement that would use a value outside
//! its loop (breaking LCSSA) is skipped.

use std::borrow::Cow;
use std::hash::BuildHasher;

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::editor::Editor;
use crate::ir::{BinaryOp, Block, Cmp, Inst, InstKind, User, Value};

/// Runs GVN; returns the number of instructions removed. Linear in the
/// size of the function (expected): at most one hash probe per instruction
/// (none for one with an operand that only it reads), and
/// the redundant instructions of a block are replaced and removed
/// together ([`Editor::replace_all_uses_batch`]: a call passing many of
/// them is rewritten once, not once per replaced argument). Within the
/// block, keys see the replacements already decided.
///
/// The table holds the representative instructions' ids, not copies of
/// their keys: a key is the instruction in the IR (with this block's
/// pending replacements applied), so an entry is 4 bytes where a copied
/// [`InstKind`] and its value took 40, and the generated programs' blocks
/// of millions of instructions keep their table in a tenth of the memory
/// (fewer cache misses per probe).
pub fn gvn(ed: &mut Editor) -> usize {
    run(ed).removed
}

/// The most instructions of a block whose entries go to GVN's block-local
/// table (see `run`).
const LOCAL_MAX: usize = 64;

/// What one GVN run did (the pass reports `removed`; the tests read the
/// rest).
#[derive(Debug, Default)]
#[cfg_attr(not(test), allow(dead_code))]
struct RunStats {
    /// Instructions removed.
    removed: usize,
    /// Table probes made.
    probes: usize,
    /// Entries added to the function-wide table (not the block-local one).
    shared: usize,
}

/// GVN; returns the instructions removed and the table probes made.
fn run(ed: &mut Editor) -> RunStats {
    ed.refresh_numbers();
    let mut probes = 0;
    let mut shared = 0;
    // Sized for the instructions that can enter it (see
    // `has_private_operand`): growing rehashes every key, and the one block
    // of a generated program holds millions, most of them private.
    let mut table: HashTable<Inst> = HashTable::with_capacity(candidates(ed));
    let mut local: HashTable<Inst> = HashTable::new();
    let hasher = FxBuildHasher;
    let mut n = 0;
    // (block, entering?) events; the undo log records the entries added
    // per block (hash and instruction), `undo_start` where each open
    // block's run begins.
    let mut stack: Vec<(Block, bool)> = vec![(ed.entry(), true)];
    let mut undo: Vec<(u64, Inst)> = Vec::new();
    let mut undo_start: Vec<usize> = Vec::new();
    let mut redundant = Vec::new();
    // This block's replacements (old → representative), applied at its end.
    let mut pairs: Vec<(Value, Value)> = Vec::new();
    let mut subst = Subst::new(ed.func().values().len());
    while let Some((b, enter)) = stack.pop() {
        if !enter {
            let from = undo_start.pop().unwrap_or(0);
            // Leaving the entry block (the last event) ends the walk: its
            // keys need no removal.
            if !stack.is_empty() {
                for &(hash, i) in &undo[from..] {
                    if let Ok(e) = table.find_entry(hash, |&x| x == i) {
                        e.remove();
                    }
                }
            }
            undo.truncate(from);
            continue;
        }
        undo_start.push(undo.len());
        // A block with no dominator-tree children keeps its entries in
        // `local`, emptied when it ends, not in `table`: nothing after the
        // block looks them up, and the then/else blocks of a function of a
        // million `if`s otherwise add and remove each entry in a table
        // larger than the cache. A key is in at most one of the two tables
        // (an instruction whose key is found in either is not entered), so
        // probing `table` and then `local` finds what one table would.
        // Only small blocks: `table` is sized for the whole function up
        // front, `local` grows (and rehashes) as it fills.
        let leaf = keeps_local(ed, b);
        for idx in 0..ed.insts(b).len() {
            let i = ed.insts(b)[idx];
            let data = ed.inst(i);
            let Some(r) = data.result else { continue };
            if data.kind.has_side_effects() || data.kind.reads_memory() {
                continue;
            }
            if matches!(data.kind, InstKind::SConst(_)) {
                continue;
            }
            if has_private_operand(ed, &data.kind, &subst) {
                continue;
            }
            let pending = !pairs.is_empty();
            let kind = key(&data.kind, &subst, pending);
            let hash = hasher.hash_one(&kind);
            probes += 1;
            let same = |&x: &Inst| key(&ed.inst(x).kind, &subst, pending) == kind;
            let found = table
                .find(hash, same)
                .or_else(|| local.find(hash, same))
                .copied();
            if let Some(rep) = found {
                let prev = ed.inst(rep).result.expect("a table entry has a result");
                let ok = ed.uses(r).iter().all(|&u| {
                    let ub = match u {
                        User::Inst(x) => ed.inst_block(x),
                        User::Term(tb) => Some(tb),
                    };
                    ub.is_some_and(|ub| ed.lcssa_ok(prev, ub))
                });
                if ok {
                    pairs.push((r, prev));
                    subst.map[r] = prev.into();
                    redundant.push(i);
                }
                continue;
            }
            // (When the table grows, each entry rehashes to its key of the
            // moment, which is the key it was inserted with: the pending
            // replacements are of values defined after it.)
            let func = ed.func();
            let rehash = |&x: &Inst| hasher.hash_one(key(&func.insts[x].kind, &subst, pending));
            if leaf {
                local.insert_unique(hash, i, rehash);
            } else {
                table.insert_unique(hash, i, rehash);
                undo.push((hash, i));
                shared += 1;
            }
            subst.entered[r] = true;
        }
        local.clear();
        ed.replace_all_uses_batch(&pairs);
        for &(r, _) in &pairs {
            subst.map[r] = None.into();
        }
        pairs.clear();
        n += ed.remove_insts(&redundant);
        redundant.clear();
        stack.push((b, false));
        for &c in ed.dom_children(b).iter().rev() {
            stack.push((c, true));
        }
    }
    RunStats {
        removed: n,
        probes,
        shared,
    }
}

/// Whether block `b` keeps its table entries in GVN's block-local table:
/// a small block without dominator-tree children (see `run`).
fn keeps_local(ed: &Editor, b: Block) -> bool {
    ed.dom_children(b).is_empty() && ed.insts(b).len() <= LOCAL_MAX
}

/// Whether some operand of `kind` is *private*: used by this instruction
/// alone, not being replaced, and not the result of a table entry. Then
/// no other instruction has the same key, now or later, so the
/// instruction can neither be redundant nor a representative, and it
/// stays out of the table. (A key names its operands after the pending
/// replacements; only a table entry's result can become a replacement's
/// representative and so gain users; a private operand has neither.) In
/// straight-line code most instructions read a value that only they read
/// (`v2 = v1 * 3` in a chain); leaving them out keeps a block of millions
/// from paying a cache miss per instruction in a table larger than the
/// cache.
fn has_private_operand(ed: &Editor, kind: &InstKind, subst: &Subst) -> bool {
    let mut private = false;
    kind.for_each_arg(|v| {
        private |= ed.uses(v).len() == 1 && subst.get(v).is_none() && !subst.entered[v];
    });
    private
}

/// About how many instructions will enter the table (the table's initial
/// capacity): the pure ones that read no memory, are not string constants
/// and have no private operand, walking the layout without replacements,
/// outside the blocks whose entries stay local ([`keeps_local`]).
/// Replacements and a layout that is not in dominance order can make more
/// enter; the table then grows.
fn candidates(ed: &Editor) -> usize {
    let func = ed.func();
    let mut seen = Subst::new(func.values().len());
    let mut n = 0;
    for &b in func.layout() {
        if keeps_local(ed, b) {
            continue;
        }
        for &i in ed.insts(b) {
            let data = &func.insts[i];
            let Some(r) = data.result else { continue };
            if !data.kind.has_side_effects()
                && !data.kind.reads_memory()
                && !matches!(data.kind, InstKind::SConst(_))
                && !has_private_operand(ed, &data.kind, &seen)
            {
                seen.entered[r] = true;
                n += 1;
            }
        }
    }
    n
}

/// This block's pending replacements (old → representative), indexed by
/// value: a block of millions of redundant instructions probes it for
/// every operand, which a hash map of them turned into cache misses.
struct Subst {
    map: SecondaryMap<Value, PackedOption<Value>>,
    /// The results of the instructions entered into the table (the only
    /// possible representatives).
    entered: SecondaryMap<Value, bool>,
}

impl Subst {
    fn new(values: usize) -> Subst {
        let mut map = SecondaryMap::with_capacity(values);
        map.resize(values);
        let mut entered = SecondaryMap::with_capacity(values);
        entered.resize(values);
        Subst { map, entered }
    }

    fn get(&self, v: Value) -> Option<Value> {
        self.map.get(v).and_then(|n| n.expand())
    }
}

/// The table key of an instruction: its kind with the pending
/// replacements `subst` applied to its operands (`pending`: whether there
/// are any). Borrowed unless an operand is replaced: a key is made for
/// every probe and every comparison in the table, and once a block has
/// found one redundant instruction, copying each key (with a call's
/// arguments) took more time than the comparisons.
fn key<'k>(kind: &'k InstKind, subst: &Subst, pending: bool) -> Cow<'k, InstKind> {
    let mut replaced = false;
    if pending {
        kind.for_each_arg(|v| replaced |= subst.get(v).is_some());
    }
    if !replaced {
        return mutant_key(Cow::Borrowed(kind));
    }
    let mut k = kind.clone();
    k.for_each_arg_mut(|v| {
        if let Some(n) = subst.get(*v) {
            *v = n;
        }
    });
    mutant_key(Cow::Owned(k))
}

/// The table key of an instruction: the instruction itself, except under
/// the test-only fault N2, which wrongly treats `<` and `-` as commutative.
fn mutant_key(kind: Cow<'_, InstKind>) -> Cow<'_, InstKind> {
    use super::fault::{on, Fault};
    match *kind {
        InstKind::Binary(op @ (BinaryOp::ICmp(Cmp::Lt) | BinaryOp::ISub), a, b)
            if on(Fault::GvnCommutes) && b < a =>
        {
            Cow::Owned(InstKind::Binary(op, b, a))
        }
        _ => kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canon::canonicalize;
    use crate::ir::{parse_program, FuncId};
    use std::fmt::Write as _;

    /// `k` copies of `v0 + 1` passed to one call.
    fn wide_call(k: usize) -> String {
        let mut s = String::from(
            "file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n    v1: int = iconst 1\n",
        );
        for j in 0..k {
            let _ = writeln!(s, "    v{}: int = iadd v0, v1", 2 + j);
        }
        let args: Vec<String> = (0..k).map(|j| format!("v{}", 2 + j)).collect();
        let params: Vec<String> = (0..k).map(|j| format!("v{j}: int")).collect();
        let sig = vec!["int"; k].join(", ");
        let _ = writeln!(
            s,
            "    v{}: int = call fn1 \"g\"({})\n    return v{}\n}}\n\nfn fn1 \"g\"({sig}) -> int {{\nblock0({}):\n    return v0\n}}",
            2 + k,
            args.join(", "),
            2 + k,
            params.join(", ")
        );
        s
    }

    /// Three chains `x(j+1) = x(j) * 3 + j` of `k` links: two from `v0`
    /// (the second redundant link by link) and one from `v1`, which only
    /// that chain reads; the function returns their sum.
    fn chains(k: usize) -> String {
        let mut s = String::from(
            "file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"(int, int) -> int {\nblock0(v0: int, v1: int):\n",
        );
        let mut next = 2;
        let mut ends = Vec::new();
        for start in [0, 0, 1] {
            let mut prev = start;
            for j in 0..k {
                let _ = writeln!(s, "    v{next}: int = iconst 3");
                let _ = writeln!(s, "    v{}: int = imul v{prev}, v{next}", next + 1);
                let _ = writeln!(s, "    v{}: int = iconst {j}", next + 2);
                let _ = writeln!(
                    s,
                    "    v{}: int = iadd v{}, v{}",
                    next + 3,
                    next + 1,
                    next + 2
                );
                prev = next + 3;
                next += 4;
            }
            ends.push(prev);
        }
        let _ = writeln!(
            s,
            "    v{next}: int = iadd v{}, v{}\n    v{}: int = iadd v{next}, v{}\n    return v{}\n}}",
            ends[0],
            ends[1],
            next + 1,
            ends[2],
            next + 1
        );
        s
    }

    #[test]
    fn instructions_reading_a_private_operand_stay_out_of_the_table() {
        let k = 200;
        let mut p = parse_program(&chains(k)).unwrap_or_else(|e| panic!("parse: {e}"));
        let f = &mut p.funcs[FuncId::from_u32(0)];
        assert!(canonicalize(f));
        let mut ed = Editor::new(f);
        let RunStats {
            removed, probes, ..
        } = run(&mut ed);
        // The second chain goes entirely (4 instructions per link), the
        // third chain's constants (2 per link: they repeat the first
        // chain's), and the first chain's `iconst 3`s after the first
        // (k - 1, and its link 3's `iconst 3` for `j`).
        assert_eq!(removed, 4 * k + 2 * k + k);
        // Probes: the constants (2 per link), the links of the first two
        // chains (whose operands both chains read, once the replacements
        // are pending) and the first sum; not the third chain's links nor
        // the last sum, which read a value that only they read.
        assert_eq!(probes, 3 * 2 * k + 2 * 2 * k + 1);
    }

    /// `k` statements `if x > c { x = x - c; } else { x = x + 1; }` as
    /// lowered: per statement a join block (the comparison) and two leaf
    /// blocks (the subtraction and the addition).
    fn if_chain(k: usize) -> String {
        let mut s = String::from(
            "file 0 \"t.wdl\"\nmain fn0\n\nfn fn0 \"f\"(int) -> int {\nblock0(v0: int):\n",
        );
        let (mut x, mut v, mut b) = (0, 1, 0);
        for j in 0..k {
            let c = j % 5;
            let _ = writeln!(s, "    v{v}: int = iconst {c}");
            let _ = writeln!(s, "    v{}: bool = icmp gt v{x}, v{v}", v + 1);
            let _ = writeln!(s, "    br v{}, block{}, block{}", v + 1, b + 1, b + 2);
            let _ = writeln!(s, "block{}:", b + 1);
            let _ = writeln!(s, "    v{}: int = iconst {c}", v + 2);
            let _ = writeln!(s, "    v{}: int = isub v{x}, v{}", v + 3, v + 2);
            let _ = writeln!(s, "    jump block{}(v{})", b + 3, v + 3);
            let _ = writeln!(s, "block{}:", b + 2);
            let _ = writeln!(s, "    v{}: int = iconst 1", v + 4);
            let _ = writeln!(s, "    v{}: int = iadd v{x}, v{}", v + 5, v + 4);
            let _ = writeln!(s, "    jump block{}(v{})", b + 3, v + 5);
            let _ = writeln!(s, "block{}(v{}: int):", b + 3, v + 6);
            x = v + 6;
            v += 7;
            b += 3;
        }
        let _ = writeln!(s, "    return v{x}\n}}");
        s
    }

    #[test]
    fn leaf_blocks_keep_their_entries_out_of_the_shared_table() {
        let k = 100;
        let mut p = parse_program(&if_chain(k)).unwrap_or_else(|e| panic!("parse: {e}"));
        let f = &mut p.funcs[FuncId::from_u32(0)];
        assert!(canonicalize(f));
        let mut ed = Editor::new(f);
        let stats = run(&mut ed);
        // The leaves' constants repeat the join's (`iconst c`) or one of
        // the five (`iconst 1`) after the first statements.
        assert!(stats.removed >= k, "{stats:?}");
        // Shared: the comparisons and the join blocks' five constants; the
        // leaves' subtractions and additions stay in the local table.
        assert!(stats.shared <= k + 5, "{stats:?}");
        // Every subtraction and addition stays (none is redundant).
        let count = |op: BinaryOp| {
            let blocks = ed.blocks();
            blocks
                .iter()
                .flat_map(|&b| ed.insts(b))
                .filter(|&&i| matches!(ed.inst(i).kind, InstKind::Binary(o, ..) if o == op))
                .count()
        };
        assert_eq!((count(BinaryOp::ISub), count(BinaryOp::IAdd)), (k, k));
    }

    #[test]
    fn a_block_of_redundant_call_arguments_is_replaced_in_one_edit() {
        let k = 300;
        let mut p = parse_program(&wide_call(k)).unwrap_or_else(|e| panic!("parse: {e}"));
        let f = &mut p.funcs[FuncId::from_u32(0)];
        assert!(canonicalize(f));
        let mut ed = Editor::new(f);
        let before = ed.stats().edits;
        assert_eq!(gvn(&mut ed), k - 1);
        // One batch replacement and one removal, not one replacement
        // (each a pass over the call's k arguments) per redundant value.
        assert!(
            ed.stats().edits - before <= 2,
            "{} edits",
            ed.stats().edits - before
        );
        let b = ed.entry();
        let call = *ed.insts(b).last().unwrap();
        let mut args = Vec::new();
        ed.inst(call).kind.for_each_arg(|v| args.push(v));
        assert_eq!(args.len(), k);
        assert!(args.iter().all(|&a| a == args[0]));
    }
}
