// Arrays print as [a, b, c]; strings inside arrays are quoted.
print([1, 2, 3]);
print([[1, 2], [3]]);
print(["a", "b"]);
print([["x", "y"], ["z"]]);
print([1.0, 0.5, 1e100, -0.0, 1e-7]);
print([1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0]);
print([true, false, true]);
let e: [str] = [];
print(e);
print([e, ["q"]]);
print([""]);
print(["with space", "comma, inside", "[brackets]"]);
