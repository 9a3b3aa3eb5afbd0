use super::*;
use crate::ir::parse_program;

fn clears_of(text: &str) -> Vec<(usize, Vec<u32>)> {
    let p = parse_program(text).expect("parses");
    let f = p.funcs.values().last().expect("a function");
    let clears = dead_ref_clears(f, f.layout(), own_slot);
    let mut v: Vec<(usize, Vec<u32>)> = clears.into_iter().map(|(i, s)| (i.index(), s)).collect();
    v.sort();
    v
}

#[test]
fn a_dead_reference_is_cleared_before_the_next_safepoint_only() {
    // v1 (a string) is dead after the concatenation that reads it; the
    // second concatenation must not find it in its slot. v2 stays live
    // across that one (returned), so it is kept.
    let clears = clears_of(
        "fn fn0 \"f\"(str) -> str {
block0(v0: str):
    v1: str = str_concat v0, v0
    v2: str = str_concat v1, v1
    v3: str = str_concat v0, v0
    return v2
}
",
    );
    // v1 is dirty (defined) and dead at the third instruction; v0 is read
    // there (kept); v2 is live after it.
    assert_eq!(clears, vec![(2, vec![1])]);
}

#[test]
fn loops_keep_what_is_live_around_the_back_edge() {
    // v0 is live around the loop (read in every iteration): never
    // cleared. v3, made each iteration and dead at once, is cleared before
    // the next iteration's allocation.
    let clears = clears_of(
        "fn fn0 \"g\"(str, int) -> str {
block0(v0: str, v1: int):
    v2: int = iconst 0
    jump block1(v2)
block1(v4: int):
    v5: bool = icmp lt v4, v1
    br v5, block2, block3
block2:
    v3: str = str_concat v0, v0
    v6: int = iconst 1
    v7: int = iadd v4, v6
    jump block1(v7)
block3:
    return v0
}
",
    );
    assert_eq!(clears.len(), 1, "{clears:?}");
    assert_eq!(clears[0].1, vec![3]);
}

#[test]
fn only_safepoints_clear_and_nothing_without_references() {
    let clears = clears_of(
        "fn fn0 \"h\"(int) -> int {
block0(v0: int):
    v1: int = iadd v0, v0
    return v1
}
",
    );
    assert!(clears.is_empty());
    assert!(may_collect(&InstKind::StrConcat(
        Value::new(0),
        Value::new(1)
    )));
    assert!(!may_collect(&InstKind::Print(Value::new(0))));
}

/// The zeroing of the last function of `text` with one word per value,
/// every value written at its definition except constants (written on
/// entry), and `extra` more words nothing writes.
fn zeroing_of(text: &str, extra: usize, max_inline: usize) -> (Vec<u32>, Vec<(usize, Vec<u32>)>) {
    use super::unwritten::{frame_zeroing, FrameWrites};
    let p = parse_program(text).expect("parses");
    let f = p.funcs.values().last().expect("a function");
    let consts: Vec<u32> = f
        .layout()
        .iter()
        .flat_map(|&b| f.blocks()[b].insts.iter())
        .filter(|&&i| matches!(f.inst(i).kind, InstKind::IConst(_)))
        .filter_map(|&i| f.inst(i).result)
        .map(|v| v.index() as u32)
        .collect();
    let mut on_entry: Vec<u32> = (f.blocks()[f.entry()].params.iter())
        .map(|v| v.index() as u32)
        .collect();
    on_entry.extend(&consts);
    let def = |v: Value| (!consts.contains(&(v.index() as u32))).then_some(v.index() as u32);
    let z = frame_zeroing(
        f,
        f.layout(),
        &FrameWrites {
            words: f.values().len() + extra,
            on_entry: &on_entry,
            def: &def,
            before: &|_, _| {},
            max_inline,
        },
    );
    let mut before: Vec<(usize, Vec<u32>)> =
        z.before.into_iter().map(|(i, s)| (i.index(), s)).collect();
    before.sort();
    (z.entry, before)
}

const FIB: &str = "fn fn0 \"fib\"(int) -> int {
block0(v0: int):
    v1: int = iconst 2
    v2: bool = icmp lt v0, v1
    br v2, block1, block2
block1:
    return v0
block2:
    v3: int = iconst 1
    v4: int = isub v0, v3
    v5: int = call fn0 \"fib\"(v4)
    v6: int = isub v0, v1
    v7: int = call fn0 \"fib\"(v6)
    v8: int = iadd v5, v7
    return v8
}
";

#[test]
fn a_function_without_safepoints_zeroes_nothing() {
    let (entry, before) = zeroing_of(
        "fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 2
    v2: int = imul v0, v1
    return v2
}
",
        1,
        12,
    );
    assert_eq!((entry, before), (vec![], vec![]));
}

#[test]
fn words_are_zeroed_before_the_first_safepoint_of_a_path_only() {
    // The base case returns without a safepoint: no zeroing there. The
    // first call (instruction 4) may find its own result, the values
    // after it and the extra word (9) unwritten; the second call finds
    // everything written or zeroed. v2 is written (the comparison), v4 is
    // the argument.
    let (entry, before) = zeroing_of(FIB, 1, 12);
    assert_eq!(entry, Vec::<u32>::new());
    assert_eq!(before, vec![(4, vec![5, 6, 7, 8, 9])]);
}

#[test]
fn safepoints_in_loops_and_large_sets_zero_on_entry() {
    let looped = "fn fn0 \"g\"(str, int) -> str {
block0(v0: str, v1: int):
    v2: int = iconst 0
    jump block1(v2)
block1(v4: int):
    v5: bool = icmp lt v4, v1
    br v5, block2, block3
block2:
    v3: str = str_concat v0, v0
    v6: int = iconst 1
    v7: int = iadd v4, v6
    jump block1(v7)
block3:
    return v0
}
";
    // The concatenation in the loop may find v3 (its result), v7 and the
    // value numbers nothing defines (8) unwritten: zeroed once, on entry.
    let (entry, before) = zeroing_of(looped, 1, 12);
    assert_eq!(entry, vec![3, 7, 8]);
    assert_eq!(before, vec![]);
    // More words than `max_inline` go to the entry too.
    let (entry, before) = zeroing_of(FIB, 1, 3);
    assert_eq!(entry, vec![5, 6, 7, 8, 9]);
    assert_eq!(before, vec![]);
}

#[test]
fn bit_sets_answer_a_word_at_a_time_as_bit_by_bit() {
    // complement, count and ones against a plain list, at sizes around
    // word boundaries; and the sparse and dense forms of a live set agree.
    for n in [0usize, 1, 5, 63, 64, 65, 127, 128, 130, 300] {
        for stride in [1usize, 2, 3, 7, 64, 65] {
            let members: Vec<usize> = (0..n).filter(|d| d % stride == 0).collect();
            let mut b = Bits::new(n);
            for &d in &members {
                b.set(d);
            }
            assert_eq!(
                b.ones().collect::<Vec<_>>(),
                members,
                "n {n} stride {stride}"
            );
            assert_eq!(b.count(), members.len());
            let rest: Vec<usize> = (0..n).filter(|d| d % stride != 0).collect();
            let c = b.complement(n);
            assert_eq!(c.ones().collect::<Vec<_>>(), rest, "n {n} stride {stride}");
            let again = LiveAfter::new(&b).to_bits(n);
            assert!(again == b, "n {n} stride {stride}");
        }
    }
}

#[test]
fn a_long_block_of_safepoints_clears_each_dead_string_once() {
    // s = s + "k" a thousand times (one block): each concatenation's left
    // operand is dead after it and is cleared before the next one.
    let mut text = String::from("fn fn0 \"f\"(str) -> str {\nblock0(v0: str):\n");
    for k in 1..=1000 {
        text.push_str(&format!("    v{k}: str = str_concat v{}, v0\n", k - 1));
    }
    text.push_str("    return v1000\n}\n");
    let clears = clears_of(&text);
    // Safepoint k (instruction index k - 1) clears v(k-2), for k >= 3
    // (v0 is read by every one of them).
    let want: Vec<(usize, Vec<u32>)> = (3..=1000).map(|k| (k - 1, vec![k as u32 - 2])).collect();
    assert_eq!(clears, want);
}
