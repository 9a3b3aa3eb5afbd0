// Functions may be declared anywhere at top level and called from anywhere.
print(later(2));
fn later(x: int) -> int { return x * 10; }
print(middle());
fn middle() -> str { return "middle " + str(later(3)); }
