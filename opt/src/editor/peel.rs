//! Loop peeling of the first iteration (Fritz §9.7, Fig. 9.73) over loop
//! duplication (§8.3).
//!
//! The loop is duplicated and the original latch jumps to the copy's
//! header: the original body becomes the straight-line first iteration and
//! the copy is the remaining loop. Repair: D: the copy's header is
//! dominated by the original latch, blocks just outside the loop get
//! `nca_D(preds)`; L: the original loop is destroyed (its blocks and inner
//! loops move to its parent; the copy and its inner loops stay, as
//! siblings there); the copy gets a dedicated preheader when the original
//! latch also branched elsewhere (§7.4.2), and every exit, now entered from
//! the peeled iteration and from the copy, is re-dedicated for the copy
//! (and for an inner loop and its copy that share it) by edge set
//! splitting (§7.4.3). The copy has fresh values, so SSA needs no
//! reconstruction and LCSSA holds: the copy's values leave it only through
//! exit arguments.

use cranelift_entity::EntitySet;

use crate::ir::{Block, Terminator};

use super::state::LoopId;
use super::Editor;

impl Editor<'_> {
    /// Peels the first iteration of loop `l`. Returns false when `l` is
    /// not a live loop.
    pub fn peel_loop(&mut self, l: LoopId) -> bool {
        self.ensure_dom();
        if !self.st.loops[l].alive {
            return false;
        }
        let h = self.header(l);
        let latch = self.latch(l);
        let body = self.body(l);
        let exits = self.exits(l);
        let mut in_body = EntitySet::<Block>::new();
        for &b in &body {
            in_body.insert(b);
        }
        let bmap = self.duplicate_loop(l);
        let h2 = bmap[h].expect("mapped");
        let mut t = self.func.blocks[latch].term.clone();
        for c in t.successors_mut() {
            if c.block == h {
                c.block = h2;
            }
        }
        self.raw_set_term(latch, t);
        if self.incremental() {
            self.st.set_idom(h2, Some(latch));
            self.kill_loop_keeping(l, &body);
            let mut b_d = Vec::new();
            for &x in &body {
                for &c in &self.st.children[x] {
                    if !in_body.contains(c) && bmap[c].is_none() {
                        b_d.push(c);
                    }
                }
            }
            loop {
                let mut changed = false;
                for &x in &b_d {
                    changed |= self.reset_idom_to_nca(x);
                }
                if !changed {
                    break;
                }
            }
        }
        // Dedicated preheader for the copy.
        let plain = matches!(&self.func.blocks[latch].term,
            Terminator::Switch { value: None, cases, .. } if cases.is_empty());
        if !plain {
            self.raw_split_edge_set(h2, &[latch]);
        }
        // Exits: entered from the peeled iteration and from the copy.
        for e in exits {
            let (orig, copy): (Vec<Block>, Vec<Block>) = self
                .preds(e)
                .into_iter()
                .partition(|&p| in_body.contains(p));
            if !orig.is_empty() && !copy.is_empty() {
                self.raw_split_edge_set(e, &copy);
                self.raw_split_edge_set(e, &orig);
            }
        }
        if !self.incremental() {
            self.rebuild();
        }
        self.finish("peel");
        true
    }

    /// Destroys loop `l` whose body is `body` (already computed: its
    /// backedge is gone): blocks and inner loops move to the parent.
    fn kill_loop_keeping(&mut self, l: LoopId, body: &[Block]) {
        let parent = self.st.loops[l].parent;
        for &b in body {
            if self.st.innermost[b].expand() == Some(l) {
                self.st.innermost[b] = parent.into();
            }
        }
        for other in self.st.loops.values_mut() {
            if other.parent == Some(l) {
                other.parent = parent;
            }
        }
        self.st.loops[l].alive = false;
        let h = self.st.loops[l].header;
        self.st.header_of[h] = None.into();
    }
}
