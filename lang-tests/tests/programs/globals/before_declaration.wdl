// Globals are visible everywhere, also before their declaration.
print(later);
later = 4;
print(later);
var later = 10;
print(later);
fn uses_g() -> int { return g * 2; }
print(uses_g());
let g = 21;
print(uses_g());
print(inferred);
let inferred = twice(3);
print(inferred);
fn twice(x: int) -> int { return x * 2; }
