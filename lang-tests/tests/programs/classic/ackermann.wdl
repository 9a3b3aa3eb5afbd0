// Ackermann function, small arguments.
fn ack(m: int, n: int) -> int {
    if m == 0 { return n + 1; }
    if n == 0 { return ack(m - 1, 1); }
    return ack(m - 1, ack(m, n - 1));
}
for m in 0..4 {
    var row = "";
    for n in 0..5 { row += str(ack(m, n)) + " "; }
    print(row);
}
print(ack(3, 5));
