// return from inside nested loops.
fn find(m: [[int]], target: int) -> str {
    for i in 0..len(m) {
        var j = 0;
        while j < len(m[i]) {
            if m[i][j] == target { return str(i) + "," + str(j); }
            j += 1;
        }
    }
    return "none";
}
let m = [[1, 2, 3], [4, 5], [6]];
print(find(m, 5));
print(find(m, 6));
print(find(m, 9));
fn first_square_over(n: int) -> int {
    var k = 0;
    while true {
        if k * k > n { return k; }
        k += 1;
    }
}
print(first_square_over(50));
