// len works on arrays and strings; push/pop on arrays of any type.
print(len([1, 2, 3]));
print(len("four"));
var fs = [1.5];
push(fs, 2.5);
print(pop(fs) + pop(fs));
print(len(fs));
var bs: [bool] = [];
push(bs, true);
print(bs);
var nested: [[int]] = [[1]];
push(nested, [2, 3]);
let last = pop(nested);
print(last);
print(nested);
var strs = ["a"];
push(strs, "b" + "c");
print(pop(strs));
