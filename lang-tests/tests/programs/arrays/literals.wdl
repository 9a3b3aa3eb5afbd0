// Array literals and their printing.
print([1, 2, 3]);
print([[1, 2], [3]]);
print([1.5, -0.0, 1e100]);
print([true, false]);
print(["a", "b"]);
let empty: [int] = [];
print(empty);
print([[1], []]);
print([[[1, 2]], [[3], [4, 5]]]);
print([[], [7]]);
let one = [42];
print(one);
print(len([[1, 2, 3], [4]]));
