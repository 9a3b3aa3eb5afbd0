// Takeuchi function, repeated: many small, deeply nested calls with three
// arguments (call-heavy). Prints the sum of the results.
// bench: quick=2
fn tak(x: int, y: int, z: int) -> int {
    if y < x {
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
    }
    return z;
}

fn main(n: int) {
    var sum = 0;
    for i in 0..n {
        sum += tak(18, 12, 6 + i % 3);
    }
    print(sum);
}

main(4000);
