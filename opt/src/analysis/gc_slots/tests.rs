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
