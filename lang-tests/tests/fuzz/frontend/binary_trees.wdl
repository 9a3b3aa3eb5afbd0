// Binary trees (benchmarks game) stored in parallel arrays.
var lefts: [int] = [];
var rights: [int] = [];
fn make(depth: int) -> int {
    let id = len(lefts);
    push(lefts, -1);
    push(rights, -1);
    if depth > 0 {
        let l = make(depth - 1);
        let r = make(depth - 1);
        lefts[id] = l;
        rights[id] = r;
    }
    return id;
}
fn check(node: int) -> int {
    if lefts[node] == -1 { return 1; }
    return 1 + check(lefts[node]) + check(rights[node]);
}
fn reset() {
    lefts = [];
    rights = [];
}
let max_depth = 8;
let stretch = make(max_depth + 1);
print("stretch tree of depth " + str(max_depth + 1) + "\t check: " + str(check(stretch)));
reset();
let long_lived = make(max_depth);
var d = 4;
while d <= max_depth {
    let iterations = 1 << (max_depth - d + 4);
    var chk = 0;
    for i in 0..iterations {
        let saved_l = lefts;
        let saved_r = rights;
        reset();
        chk += check(make(d));
        lefts = saved_l;
        rights = saved_r;
    }
    print(str(iterations) + "\t trees of depth " + str(d) + "\t check: " + str(chk));
    d += 2;
}
print("long lived tree of depth " + str(max_depth) + "\t check: " + str(check(long_lived)));
