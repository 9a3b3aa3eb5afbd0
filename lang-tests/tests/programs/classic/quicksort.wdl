// Quicksort (Lomuto) on a pseudo-random array.
var seed = 42;
fn rand() -> int {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
}
fn quicksort(a: [int], lo: int, hi: int) {
    if lo >= hi { return; }
    let pivot = a[hi];
    var i = lo;
    for j in lo..hi {
        if a[j] < pivot {
            let t = a[i]; a[i] = a[j]; a[j] = t;
            i += 1;
        }
    }
    let t = a[i]; a[i] = a[hi]; a[hi] = t;
    quicksort(a, lo, i - 1);
    quicksort(a, i + 1, hi);
}
var xs: [int] = [];
for i in 0..2000 { push(xs, rand() % 1000); }
quicksort(xs, 0, len(xs) - 1);
var sorted = true;
for i in 1..len(xs) { if xs[i - 1] > xs[i] { sorted = false; } }
print(sorted);
var head: [int] = [];
for i in 0..10 { push(head, xs[i]); }
print(head);
print(xs[len(xs) - 1]);
var sum = 0;
for i in 0..len(xs) { sum += xs[i]; }
print(sum);
