// Nested integer loops: loop overhead, multiply, xor and remainder.
// bench: quick=50
fn main(n: int) {
    var total = 0;
    for i in 0..n {
        for j in 0..n {
            total += ((i * j) ^ (i + j)) % 7;
        }
    }
    print(total);
}

main(15_000);
