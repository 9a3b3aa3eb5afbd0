// Trailing commas in parameter, argument and array lists; empty statements.
fn add(a: int, b: int,) -> int {
    return a + b;
}
print(add(1, 2,));
let xs = [1, 2, 3,];
print(xs);
let nested = [[1,], [2, 3,],];
print(nested);
;
;;
{ ; }
print(len(xs,));
