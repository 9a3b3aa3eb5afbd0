// assert(c) does nothing when c is true.
assert(true);
assert(1 + 1 == 2);
assert("a" < "b");
let xs = [1, 2];
assert(len(xs) == 2);
print("all asserts passed");
