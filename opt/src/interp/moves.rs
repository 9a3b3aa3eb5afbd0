//! Sequentializing the parallel moves of a control-flow edge.
//!
//! An edge `jump b(x, y)` assigns all of `b`'s parameters at once. The
//! sequential order is found the classic way: repeatedly emit a move whose
//! destination no other pending move still reads; when only cycles remain
//! (`a, b = b, a`), save one destination in a scratch slot and redirect its
//! readers there, which breaks the cycle.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Orders the parallel moves `dst ← src` (destinations distinct) into an
/// equivalent sequence. `temp` is a slot no move reads or writes; the
/// second result says whether it was used.
///
/// The order is the classic one: the first pending move (in input order)
/// whose destination no pending move reads, else a cycle broken at the
/// first pending move. Finding it by scanning the pending moves made an
/// edge passing thousands of values cubic; here each slot counts its
/// pending readers and a heap holds the ready moves, so the sequence is
/// the same and found in `O(n log n)`.
/// Generic in the slot type: the baseline tier (`waddle_jit::baseline`)
/// orders its frame-slot moves with it too.
pub fn sequentialize<S: Copy + Eq + Hash>(moves: &[(S, S)], temp: S) -> (Vec<(S, S)>, bool) {
    let mut pending: Vec<(S, S)> = moves.iter().copied().filter(|&(d, s)| d != s).collect();
    let n = pending.len();
    let mut out = Vec::with_capacity(n + 1);
    let mut used_temp = false;
    // Per slot: the pending moves reading it, and the move writing it.
    let mut readers: FxHashMap<S, Vec<usize>> = FxHashMap::default();
    let mut writer: FxHashMap<S, usize> = FxHashMap::default();
    for (i, &(d, s)) in pending.iter().enumerate() {
        readers.entry(s).or_default().push(i);
        writer.insert(d, i);
    }
    let mut reads: FxHashMap<S, usize> = readers.iter().map(|(&s, r)| (s, r.len())).collect();
    let mut done = vec![false; n];
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n)
        .filter(|&i| reads.get(&pending[i].0).is_none_or(|&r| r == 0))
        .map(Reverse)
        .collect();
    // The first move not yet emitted (moves are only ever removed).
    let mut first = 0;
    let mut left = n;
    while left > 0 {
        if let Some(Reverse(i)) = ready.pop() {
            let (_, s) = pending[i];
            out.push(pending[i]);
            done[i] = true;
            left -= 1;
            if s != temp {
                let r = reads.get_mut(&s).expect("a read slot is counted");
                *r -= 1;
                if *r == 0 {
                    if let Some(&w) = writer.get(&s) {
                        if !done[w] {
                            ready.push(Reverse(w));
                        }
                    }
                }
            }
            continue;
        }
        // Every destination is still read: all moves are on cycles.
        while done[first] {
            first += 1;
        }
        let d = pending[first].0;
        out.push((temp, d));
        used_temp = true;
        for &j in readers.get(&d).map_or(&[][..], |r| r.as_slice()) {
            if !done[j] && pending[j].1 == d {
                pending[j].1 = temp;
            }
        }
        reads.insert(d, 0);
        ready.push(Reverse(first));
    }
    (out, used_temp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::code::Slot;

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

    /// The quadratic original: the first ready pending move, else a cycle
    /// broken at the first pending move.
    fn reference(moves: &[(Slot, Slot)], temp: Slot) -> (Vec<(Slot, Slot)>, bool) {
        let mut pending: Vec<(Slot, Slot)> =
            moves.iter().copied().filter(|&(d, s)| d != s).collect();
        let mut out = Vec::new();
        let mut used_temp = false;
        while !pending.is_empty() {
            let ready = (0..pending.len()).find(|&i| {
                let d = pending[i].0;
                !pending.iter().any(|&(_, s)| s == d)
            });
            match ready {
                Some(i) => out.push(pending.remove(i)),
                None => {
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

    #[test]
    fn same_sequence_as_the_scanning_order() {
        // Every map from 5 destinations to sources among 7 slots, in two
        // destination orders.
        for code in 0..7u32.pow(5) {
            let mut c = code;
            let mut moves: Vec<(Slot, Slot)> = (0..5)
                .map(|d| {
                    let s = c % 7;
                    c /= 7;
                    (d, s)
                })
                .collect();
            assert_eq!(
                sequentialize(&moves, 100),
                reference(&moves, 100),
                "{moves:?}"
            );
            moves.reverse();
            assert_eq!(
                sequentialize(&moves, 100),
                reference(&moves, 100),
                "{moves:?}"
            );
        }
    }

    #[test]
    fn a_long_rotation_is_one_cycle_break() {
        // v(k) = v(k - 1) for every slot: the latch of `waddle bench
        // --scaling`'s loopvars.
        let n = 2_000;
        let moves: Vec<(Slot, Slot)> = (0..n).map(|k| (k, (k + n - 1) % n)).collect();
        let (seq, used) = sequentialize(&moves, n);
        assert!(used);
        assert_eq!(seq.len(), n as usize + 1);
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
