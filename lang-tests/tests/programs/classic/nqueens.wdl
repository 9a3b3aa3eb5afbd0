// N-queens solution counts by backtracking.
fn solve(row: int, n: int, cols: [bool], d1: [bool], d2: [bool]) -> int {
    if row == n { return 1; }
    var count = 0;
    for c in 0..n {
        if !cols[c] && !d1[row + c] && !d2[row - c + n - 1] {
            cols[c] = true; d1[row + c] = true; d2[row - c + n - 1] = true;
            count += solve(row + 1, n, cols, d1, d2);
            cols[c] = false; d1[row + c] = false; d2[row - c + n - 1] = false;
        }
    }
    return count;
}
for n in 1..9 {
    print(str(n) + ": " + str(solve(0, n, [false; n], [false; 2 * n], [false; 2 * n])));
}
