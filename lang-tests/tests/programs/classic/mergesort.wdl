// Merge sort returning new arrays, on floats and strings.
fn merge_sort(a: [float]) -> [float] {
    if len(a) <= 1 { return a; }
    let mid = len(a) / 2;
    var left: [float] = [];
    var right: [float] = [];
    for i in 0..mid { push(left, a[i]); }
    for i in mid..len(a) { push(right, a[i]); }
    left = merge_sort(left);
    right = merge_sort(right);
    var out: [float] = [];
    var i = 0;
    var j = 0;
    while i < len(left) && j < len(right) {
        if left[i] <= right[j] { push(out, left[i]); i += 1; }
        else { push(out, right[j]); j += 1; }
    }
    while i < len(left) { push(out, left[i]); i += 1; }
    while j < len(right) { push(out, right[j]); j += 1; }
    return out;
}
fn sort_strs(a: [str]) -> [str] {
    // insertion sort
    for i in 1..len(a) {
        let key = a[i];
        var j = i - 1;
        while j >= 0 && a[j] > key {
            a[j + 1] = a[j];
            j -= 1;
        }
        a[j + 1] = key;
    }
    return a;
}
print(merge_sort([3.5, -1.0, 2.25, 0.0, 10.0, -7.5, 2.25, 1e10, -0.5]));
print(merge_sort([]));
print(sort_strs(["pear", "apple", "fig", "Banana", "apple", "é", ""]));
