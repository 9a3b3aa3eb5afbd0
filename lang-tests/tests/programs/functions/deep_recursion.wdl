// 10 000 nested calls must work on every tier (the depth limit is higher).
fn depth(n: int) -> int {
    if n == 0 { return 0; }
    return depth(n - 1) + 1;
}
print(depth(10000));
fn sum_to(n: int, acc: int) -> int {
    if n == 0 { return acc; }
    return sum_to(n - 1, acc + n);
}
print(sum_to(10000, 0));
fn build(n: int, xs: [int]) -> [int] {
    if n == 0 { return xs; }
    push(xs, n);
    return build(n - 1, xs);
}
print(len(build(9999, [])));
