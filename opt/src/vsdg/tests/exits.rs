//! Loops with several exits whose paths meet again (a `return` inside a
//! loop after inlining, a search loop that breaks with its result): the
//! lifter joins the exits like a γ's arms, so the code after the loop is
//! lifted once, not once per exit (Lawrence §2.6.6's loop with the exit
//! selection as a γ; digest §6.4's growth bound).

use super::{assignments, same_and_no_worse, show, trip};
use crate::ir::Function;

/// `k` search loops in sequence: loop `j` looks for the `i < n` with
/// `i * i == t + j` and leaves with `i` when it finds it (exit B) or with
/// `-1` at the end (exit A); both meet at the join, which adds the result
/// to the sum and enters the next loop. `b` selects whether the found
/// value is doubled first (a γ in exit B's region).
fn searches(k: usize) -> String {
    let mut s = String::from(
        "fn fn0 \"searches\"(bool, int, int) -> int {
block0(v0: bool, v1: int, v2: int):
    v3: int = iconst 0
    v4: int = iconst 1
    v5: int = iconst -1
    jump block1(v3, v3)
",
    );
    // Block numbers per loop: header h, body h+1, latch h+2, exit A h+3,
    // exit B h+4, doubling arm h+5, join h+6; the next header is h+7.
    for j in 0..k {
        let h = 1 + 7 * j;
        let v = 10 + 20 * j;
        let next = format!("block{}", h + 6);
        s += &format!(
            "block{h}(v{v}: int, v{acc}: int):
    v{c}: bool = icmp lt v{v}, v1
    br v{c}, block{b1}, block{ea}(v{acc})
block{b1}:
    v{sq}: int = imul v{v}, v{v}
    v{jt}: int = iconst {j}
    v{t}: int = iadd v2, v{jt}
    v{eq}: bool = icmp eq v{sq}, v{t}
    br v{eq}, block{eb}(v{v}, v{acc}), block{l}
block{l}:
    v{nx}: int = iadd v{v}, v4
    jump block{h}(v{nx}, v{acc})
block{ea}(v{acca}: int):
    v{sa}: int = iadd v{acca}, v5
    jump {next}(v{sa})
block{eb}(v{found}: int, v{accb}: int):
    br v0, block{dbl}, {next}(v{found})
block{dbl}:
    v{twice}: int = iadd v{found}, v{found}
    v{sb}: int = iadd v{accb}, v{twice}
    jump {next}(v{sb})
",
            acc = v + 1,
            c = v + 2,
            b1 = h + 1,
            ea = h + 3,
            sq = v + 3,
            jt = v + 4,
            t = v + 5,
            eq = v + 6,
            eb = h + 4,
            l = h + 2,
            nx = v + 7,
            acca = v + 8,
            sa = v + 9,
            found = v + 10,
            accb = v + 11,
            dbl = h + 5,
            twice = v + 12,
            sb = v + 13,
        );
        // The join: the sum so far, then the next loop from 0.
        let jn = h + 6;
        let r = v + 14;
        if j + 1 == k {
            s += &format!("block{jn}(v{r}: int):\n    return v{r}\n");
        } else {
            s += &format!(
                "block{jn}(v{r}: int):\n    jump block{}(v3, v{r})\n",
                jn + 1
            );
        }
    }
    s += "}\n";
    s
}

/// Instructions and terminators of `f`.
fn insts(f: &Function) -> usize {
    f.layout.iter().map(|&b| f.blocks[b].insts.len() + 1).sum()
}

/// Sequential two-exit loops: the round trip keeps each loop's successor
/// code once (its size stays within the original's, at every `k`, where
/// lifting each exit's continuation separately doubles it per loop and
/// then rejects the function), and behaves the same on every input.
#[test]
fn two_exit_loops_in_sequence_share_their_continuation() {
    for k in [1, 2, 3, 6] {
        let text = searches(k);
        let (before, after) = trip(&text);
        assert!(
            insts(&after) <= insts(&before),
            "k={k}: {} > {} instructions\n{}",
            insts(&after),
            insts(&before),
            show(&after)
        );
        for args in assignments(1, &[5, 9])
            .into_iter()
            .chain(assignments(1, &[5, 0]))
        {
            same_and_no_worse(&before, &after, &args);
        }
    }
}
