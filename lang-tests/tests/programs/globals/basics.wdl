// The example of docs/language.md "Programs and scopes".
fn fib(n: int) -> int {
    if n < 2 { return n; }
    return fib(n - 1) + fib(n - 2);
}

var calls = 0;
fn bump() { calls += 1; }

print(fib(20));      // 6765
bump(); bump();
print(calls);        // 2
