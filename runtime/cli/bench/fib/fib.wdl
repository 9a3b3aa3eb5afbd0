// Recursive Fibonacci: call overhead and integer arithmetic.
// bench: quick=18
fn fib(n: int) -> int {
    if n < 2 {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

fn main(n: int) {
    print(fib(n));
}

main(40);
