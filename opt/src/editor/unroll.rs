//! Loop unrolling by two (Fritz §9.6, Fig. 9.63) over loop duplication
//! (§8.3).
//!
//! The loop is duplicated; the original latch now jumps to the copy's
//! header and the copy's latch back to the original header, so each trip
//! runs the body twice (every exit test stays). Repair: D: the copy's
//! header is dominated by the original latch, and the blocks just outside
//! the loop that were dominated from inside (`B_D`) get `nca_D(preds)`;
//! L: the copy stops being a loop, its blocks and inner loops join the
//! original; exits of inner loops that also leave the unrolled loop are
//! now shared by an inner loop and its copy and are re-dedicated for both
//! by edge set splitting (§7.4). The copy has fresh values, so no SSA
//! reconstruction is needed.

use cranelift_entity::EntitySet;

use crate::ir::Block;

use super::state::LoopId;
use super::Editor;

impl Editor<'_> {
    /// Unrolls loop `l` by two. Always applicable to a live loop.
    pub fn unroll_loop(&mut self, l: LoopId) -> bool {
        self.ensure_dom();
        if !self.st.loops[l].alive {
            return false;
        }
        let h = self.header(l);
        let latch = self.latch(l);
        let body = self.body(l);
        let mut in_body = EntitySet::<Block>::new();
        for &b in &body {
            in_body.insert(b);
        }
        // Exits of l that are exits of an inner loop too (all their
        // predecessors lie in one loop nested in l).
        let mut shared: Vec<(Block, LoopId)> = Vec::new();
        for e in self.exits(l) {
            let mut m = None;
            let mut first = true;
            for p in self.preds(e) {
                let pl = self.st.innermost[p].expand();
                m = if first { pl } else { self.st.loop_nca(m, pl) };
                first = false;
            }
            if let Some(m) = m.filter(|&m| m != l) {
                shared.push((e, m));
            }
        }
        let bmap = self.duplicate_loop(l);
        let h2 = bmap[h].expect("mapped");
        let latch2 = bmap[latch].expect("mapped");
        let mut t = self.func.blocks[latch].term.clone();
        for c in t.successors_mut() {
            if c.block == h {
                c.block = h2;
            }
        }
        self.raw_set_term(latch, t);
        let mut t = self.func.blocks[latch2].term.clone();
        for c in t.successors_mut() {
            if c.block == h2 {
                c.block = h;
            }
        }
        self.raw_set_term(latch2, t);
        if self.incremental() {
            self.st.set_idom(h2, Some(latch));
            // The copy of l is no loop: its blocks and loops join l.
            if let Some(l2) = self.st.header_of[h2].expand() {
                for &b in &body {
                    let nb = bmap[b].expect("mapped");
                    if self.st.innermost[nb].expand() == Some(l2) {
                        self.st.innermost[nb] = Some(l).into();
                    }
                }
                for other in self.st.loops.values_mut() {
                    if other.parent == Some(l2) {
                        other.parent = Some(l);
                    }
                }
                self.st.loops[l2].alive = false;
                self.st.header_of[h2] = None.into();
            }
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
        // Exits shared by an inner loop and its copy: dedicate them for both.
        for (e, _) in shared {
            let (orig, copy): (Vec<Block>, Vec<Block>) = self
                .preds(e)
                .into_iter()
                .partition(|&p| in_body.contains(p));
            if !orig.is_empty() && !copy.is_empty() {
                self.raw_split_edge_set(e, &orig);
                self.raw_split_edge_set(e, &copy);
            }
        }
        if !self.incremental() {
            self.rebuild();
        }
        self.finish("unroll");
        true
    }
}
