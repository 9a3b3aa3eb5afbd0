//! Guarded self calls under collector stress: the corpus's GC stress test
//! runs compiled code with fuel, which turns guards off, so it never sees a
//! guarded copy. These programs recurse through guarded calls that take,
//! return and keep references (strings, arrays) while collecting before
//! every allocation, with fuel off (guards on), and must print what the
//! interpreter prints.

use waddle::{Config, OutputSink, Session, Tier};

const PROGRAM: &str = r#"
fn pick(a: [str], i: int) -> str {
    if i >= len(a) { return a[0]; }
    if len(a[i]) > 2 { return a[i]; }
    let t = pick(a, i + 1);
    return t + a[i] + pick(a, i + 2);
}
fn rows(m: [[int]], i: int, acc: [[int]]) -> [[int]] {
    if i >= len(m) { return acc; }
    if len(m[i]) == 0 { return m; }
    push(acc, [i, i * 2]);
    let r = rows(m, i + 1, acc);
    return rows(r, i + 2, [[len(r)]]);
}
fn words(s: str, n: int) -> str {
    if n <= 0 { return s; }
    if s == "stop" { return s; }
    return words(s + str(n), n - 1) + words("w", n - 2);
}
var keep = [""];
for j in 0..30 {
    let p = pick(["a", "bb", "c", "dd", "e", "ff", "ggg"], 0);
    push(keep, p);
    let r = rows([[1], [2], [3], [4], [5], [6], [7], [8]], 0, [[0]]);
    push(keep, str(len(r)) + str(r[0]));
    push(keep, words("x", 9));
}
print(len(keep));
print(keep[1]);
print(keep[2]);
print(keep[90]);
"#;

fn run(tier: Tier, stress: bool) -> (String, Option<String>) {
    let config = Config::new()
        .tier(tier)
        .opt_level(2)
        .interruptible(false)
        .gc_stress(stress);
    let mut s = Session::with_config(&config, OutputSink::Capture).unwrap();
    let r = s.run("prog.wdl", PROGRAM);
    (
        String::from_utf8_lossy(&s.take_output()).into_owned(),
        r.err().map(|e| e.render()),
    )
}

#[test]
fn guarded_references_survive_collection_before_every_allocation() {
    let expected = run(Tier::Interp, false);
    assert_eq!(expected.1, None, "{expected:?}");
    for tier in [Tier::Opt, Tier::Full] {
        assert_eq!(run(tier, true), expected, "{tier}");
    }
}
