//! Random control-flow edits inside `Editor::with_deferred_dominators`:
//! the primitives skip their dominator repairs there (and find regions that
//! became unreachable without the tree), while predecessors, the loop
//! forest and use lists stay maintained. With the checker on, every edit
//! compares those with fresh ones; at the end of each batch the recomputed
//! tree must match a fresh one, and the function must verify and be
//! canonical. Batches alternate with the same edits outside a batch, where
//! the checker compares the dominator tree after every one.

use waddle_opt::canon::check_canonical;
use waddle_opt::editor::Editor;
use waddle_opt::ir::{verify_program, Block, FuncId, Terminator};

#[path = "../benches/gen/mod.rs"]
mod gen;

/// xorshift64*: a small deterministic generator for the edit choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// One random edit of `ed`: fold a switch to one of its edges, thread a
/// jump (then straighten), split an edge, or straighten.
fn random_edit(ed: &mut Editor, rng: &mut Rng) {
    let blocks = ed.blocks();
    let b: Block = blocks[rng.below(blocks.len())];
    match rng.below(4) {
        0 => {
            if let Terminator::Switch { cases, .. } = ed.term(b) {
                let edges = cases.len() + 1;
                if edges > 1 {
                    let keep = rng.below(edges);
                    ed.fold_switch(b, keep);
                }
            }
        }
        1 => {
            if ed.can_thread(b) && ed.thread_jump(b).is_some() {
                ed.straighten(b);
            }
        }
        2 => {
            let succs = ed.succs(b);
            let s = succs[rng.below(succs.len())..].first().copied();
            // A forward edge into a block that is no loop header.
            if let Some(s) = s.filter(|&s| ed.loop_headed_by(s).is_none() && s != b) {
                ed.split_edge_set(s, &[b]);
            }
        }
        _ => {
            ed.straighten(b);
        }
    }
}

#[test]
fn deferred_dominators_match_fresh_ones_after_random_edits() {
    for seed in 0..40u64 {
        let mut p = gen::generate(80, 0xdefe ^ (seed * 104_729));
        let big = FuncId::from_u32(1);
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        {
            let f = &mut p.funcs[big];
            let mut ed = Editor::new(f);
            ed.set_checking(true);
            for batch in 0..8 {
                let edits = 1 + rng.below(40);
                if batch % 2 == 0 {
                    ed.with_deferred_dominators(|ed| {
                        for _ in 0..edits {
                            random_edit(ed, &mut rng);
                        }
                    });
                } else {
                    // The same edits with every repair (and the ejection
                    // shortcut) checked one by one.
                    for _ in 0..edits {
                        random_edit(&mut ed, &mut rng);
                    }
                }
                ed.check()
                    .unwrap_or_else(|e| panic!("seed {seed} batch {batch}: {e}"));
                // The tree is readable again, and numbered queries agree
                // with the walks.
                let order = ed.dom_preorder();
                assert_eq!(order.len(), ed.blocks().len(), "seed {seed}");
            }
        }
        verify_program(&p).unwrap_or_else(|e| panic!("seed {seed}: {:?}", e[0]));
        check_canonical(&p.funcs[big]).unwrap();
    }
}

#[test]
#[should_panic(expected = "read inside `with_deferred_dominators`")]
fn reading_the_tree_inside_a_batch_panics() {
    let mut p = gen::generate(20, 7);
    let f = &mut p.funcs[FuncId::from_u32(1)];
    let mut ed = Editor::new(f);
    ed.with_deferred_dominators(|ed| {
        // Find one edit that changes control flow, then read the tree.
        for b in ed.blocks() {
            if ed.can_thread(b) && ed.thread_jump(b).is_some() {
                break;
            }
            if let Terminator::Switch { cases, default, .. } = ed.term(b) {
                if cases.iter().any(|(_, c)| c.block != default.block) {
                    ed.fold_switch(b, 0);
                    break;
                }
            }
        }
        ed.dom_preorder();
    });
}
