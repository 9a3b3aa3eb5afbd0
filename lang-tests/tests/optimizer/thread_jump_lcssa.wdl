// Regression (difftest seed 292): jump simplification (thread_jump) on the
// pipeline's shared editor created a join parameter inside a loop whose uses
// outside the loop broke LCSSA. Compiled at every level, never run (its
// loops do not terminate).
var trace: [int] = [];
fn t(k: int) -> int { push(trace, k); return k; }
fn tb(k: int, b: bool) -> bool { push(trace, k); return b; }
fn ts(k: int, s: str) -> str { push(trace, k); return s; }
fn ix(i: int, n: int) -> int {
    let r = i % n;
    return r;
}
fn cap(s: str) -> str {
    return s;
}
fn f5(p6: [[str]]) -> int {
    var w7 = 0;
    while tb(3, (float(64) != max((-1.0207064861735446e220), 5.25))) && (w7 < 2) {
        w7 += 1;
    }
    print((-t(83)));
    if ((max((9.25 / 5e-324), max(2.0, 5e-324)) / (max((0.0 / 0.0), 15.75) % abs(10.75))) == float(len(ts(11, "nul\0")))) {
        var w8 = 0;
        while tb(82, ((-w8) > (w8 << w8))) && (w8 < 5) {
            if g3 {
            }
        }
    }
    return (((int(2.2250738585072014e-308) / ((w7 % (w7 | 1)) | 1)) << (-(-1))) >> (t(19) >> ((1_000_000 - (-9223372036854775807 - 1)) / ((6 ^ 2) | 1))));
}
fn f11(p12: bool, p13: [bool]) {
    if g4 {
    }
}
fn f15() -> [bool] {
    let v16: [[str]] = [[cap((ts(2, g2) + str(false))), cap((("q\"q" + g2) + ts(89, g2)))]; (t(42) & 3)];
    while true {
        if tb(43, (!(("Z" + g2) < at_str(at_astr(v16, 6), 1)))) {
        }
    }
}
var g2: str = ts(92, "a");
var g3: bool = ((true == g4) != (g4 || true));
var g4: bool = ((7.75 != (-2.4844831121251095e287)) && tb(69, g3));
if (false && tb(23, (str((-9223372036854775807 - 1)) != (g2 + g2)))) {
    var v20 = floor(float((t(44) ^ (0 ^ 7))));
    {
        {
            if ((abs((-9)) != len(str([[[3]]]))) == tb(48, tb(7, true))) {
            }
            if (!(tb(10, (v20 <= 9.538513443776616e265)) && tb(25, (0.0 == v20)))) {
            }
        }
    }
    while true {
    }
}
fn at_astr(a: [[str]], i: int) -> [str] {
    return a[ix(i, len(a))];
}
fn at_str(a: [str], i: int) -> str {
    return a[ix(i, len(a))];
}