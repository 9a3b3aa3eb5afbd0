// Towers of Hanoi with arrays as pegs.
var moves = 0;
fn hanoi(n: int, from: [int], to: [int], via: [int]) {
    if n == 0 { return; }
    hanoi(n - 1, from, via, to);
    push(to, pop(from));
    moves += 1;
    hanoi(n - 1, via, to, from);
}
let a = [8, 7, 6, 5, 4, 3, 2, 1];
let b: [int] = [];
let c: [int] = [];
hanoi(len(a), a, c, b);
print(moves);
print(a);
print(c);
