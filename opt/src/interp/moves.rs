//! Sequentializing the parallel moves of a control-flow edge.
//!
//! An edge `jump b(x, y)` assigns all of `b`'s parameters at once. The
//! sequential order is found the classic way: repeatedly emit a move whose
//! destination no other pending move still reads; when only cycles remain
//! (`a, b = b, a`), save one destination in a scratch slot and redirect its
//! readers there, which breaks the cycle.

use super::code::Slot;

/// Orders the parallel moves `dst ← src` (destinations distinct) into an
/// equivalent sequence. `temp` is a slot no move reads or writes; the
/// second result says whether it was used.
pub(crate) fn sequentialize(moves: &[(Slot, Slot)], temp: Slot) -> (Vec<(Slot, Slot)>, bool) {
    let mut pending: Vec<(Slot, Slot)> = moves.iter().copied().filter(|&(d, s)| d != s).collect();
    let mut out = Vec::with_capacity(pending.len() + 1);
    let mut used_temp = false;
    while !pending.is_empty() {
        let ready = (0..pending.len()).find(|&i| {
            let d = pending[i].0;
            !pending.iter().any(|&(_, s)| s == d)
        });
        match ready {
            Some(i) => out.push(pending.remove(i)),
            None => {
                // Every destination is still read: all moves are on cycles.
                let d = pending[0].0;
                out.push((temp, d));
                used_temp = true;
                for m in &mut pending {
                    if m.1 == d {
                        m.1 = temp;
                    }
                }
            }
        }
    }
    (out, used_temp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `seq` on `regs` and checks it computes the parallel assignment.
    fn check(moves: &[(Slot, Slot)]) {
        let temp = 100;
        let mut regs: Vec<u64> = (0..101).map(|i| i * 10).collect();
        let mut want = regs.clone();
        for &(d, s) in moves {
            want[d as usize] = regs[s as usize];
        }
        let (seq, used) = sequentialize(moves, temp);
        for &(d, s) in &seq {
            regs[d as usize] = regs[s as usize];
        }
        regs[temp as usize] = want[temp as usize];
        assert_eq!(regs, want, "moves {moves:?} sequence {seq:?}");
        let cyclic = moves
            .iter()
            .any(|&(d, s)| d != s && moves.iter().any(|&(d2, _)| d2 == s));
        assert!(!used || cyclic, "temp used without a cycle: {moves:?}");
    }

    #[test]
    fn chains_cycles_and_fanout() {
        check(&[]);
        check(&[(1, 1)]);
        check(&[(1, 2)]);
        check(&[(1, 2), (2, 3), (3, 4)]);
        check(&[(1, 2), (2, 1)]);
        check(&[(1, 2), (2, 3), (3, 1)]);
        check(&[(1, 2), (2, 1), (3, 1), (4, 2)]);
        check(&[(1, 2), (2, 1), (3, 4), (4, 3), (5, 5)]);
        check(&[(1, 3), (2, 1), (3, 2), (4, 3)]);
        check(&[(5, 1), (6, 1), (1, 6)]);
    }

    #[test]
    fn exhaustive_small_permutations() {
        // Every map from 4 destinations to sources among 6 slots.
        for code in 0..6u32.pow(4) {
            let mut c = code;
            let moves: Vec<(Slot, Slot)> = (0..4)
                .map(|d| {
                    let s = c % 6;
                    c /= 6;
                    (d, s)
                })
                .collect();
            check(&moves);
        }
    }
}
