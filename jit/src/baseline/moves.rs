//! Sequentializing the parallel copies of block arguments into target
//! block parameters (the "parallel moves on edges" of a block-parameter
//! IR). Sources and destinations are frame slots; one temporary breaks
//! cycles. The same algorithm as the interpreter's (`opt::interp::moves`).

/// One step of a sequentialized parallel copy between slots.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum MoveOp {
    /// `slot[dst] = slot[src]`.
    Copy {
        /// Destination slot.
        dst: usize,
        /// Source slot.
        src: usize,
    },
    /// `temp = slot[src]`.
    ToTemp(usize),
    /// `slot[dst] = temp`.
    FromTemp(usize),
}

/// Appends to `out` a sequence of copies with the effect of performing all
/// `(dst, src)` copies at once. Destinations must be distinct. The order is
/// the interpreter's ([`waddle_opt::interp::moves::sequentialize`], linear
/// up to a logarithm in the number of moves), with `usize::MAX` standing
/// for the temporary.
pub(crate) fn sequentialize(moves: &[(usize, usize)], out: &mut Vec<MoveOp>) {
    const TEMP: usize = usize::MAX;
    let (seq, _) = waddle_opt::interp::moves::sequentialize(moves, TEMP);
    out.extend(seq.into_iter().map(|(dst, src)| match (dst, src) {
        (TEMP, src) => MoveOp::ToTemp(src),
        (dst, TEMP) => MoveOp::FromTemp(dst),
        (dst, src) => MoveOp::Copy { dst, src },
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `ops` on a slot array and returns it.
    fn run(init: &[u64], ops: &[MoveOp]) -> Vec<u64> {
        let mut s = init.to_vec();
        let mut t = 0;
        for op in ops {
            match *op {
                MoveOp::Copy { dst, src } => s[dst] = s[src],
                MoveOp::ToTemp(src) => t = s[src],
                MoveOp::FromTemp(dst) => s[dst] = t,
            }
        }
        s
    }

    #[test]
    fn cycles_chains_and_fanout() {
        let cases: &[&[(usize, usize)]] = &[
            &[(0, 1), (1, 0)],
            &[(0, 1), (1, 2), (2, 0)],
            &[(0, 1), (1, 0), (2, 0), (3, 1)],
            &[(0, 1), (1, 0), (2, 3), (3, 2), (4, 4)],
            &[(1, 0), (2, 1), (3, 2)],
            &[(0, 0)],
            &[],
        ];
        for &moves in cases {
            let init: Vec<u64> = (0..6).map(|i| 100 + i).collect();
            let mut want = init.clone();
            for &(d, s) in moves {
                want[d] = init[s];
            }
            let mut ops = Vec::new();
            sequentialize(moves, &mut ops);
            assert_eq!(run(&init, &ops), want, "{moves:?} -> {ops:?}");
        }
    }
}
