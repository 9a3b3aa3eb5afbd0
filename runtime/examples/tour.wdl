// A short tour of Waddle: run it with
//   cargo run --release -p waddle -- run runtime/examples/tour.wdl

// Functions can be declared anywhere and called before their declaration.
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}

// Globals are visible in every function.
var calls = 0;
fn greet(name: str) -> str {
    calls += 1;
    return "hello, " + name + "!";
}

// Arrays are growable references; `[v; n]` repeats a value.
fn sieve(n: int) -> [int] {
    var is_prime = [true; n + 1];
    var primes: [int] = [];
    for i in 2..n + 1 {
        if is_prime[i] {
            push(primes, i);
            var j = i * i;
            while j <= n {
                is_prime[j] = false;
                j += i;
            }
        }
    }
    return primes;
}

// Floats print the shortest text that reads back to the same value.
fn mean(xs: [float]) -> float {
    var sum = 0.0;
    for i in 0..len(xs) { sum += xs[i]; }
    return sum / float(len(xs));
}

print(greet("Waddle"));
print(fib(25));
print(sieve(50));
print(mean([1.5, 2.25, 4.0]));
print([["nested", "arrays"], ["print", "quoted"]]);
print(str(7 / 2) + " " + str(-7 % 3) + " " + str(1 << 65));
print(sqrt(2.0));
print(calls);
