// `/` and `%` by constants (which the tiers may compute without a divide:
// shifts for powers of two, a multiply by a reciprocal for the others)
// truncate toward zero and take the sign of the dividend, for every
// dividend including the extremes.
fn by_constants(x: int) -> str {
    var s = "";
    s = s + " " + str(x / 2) + " " + str(x % 2);
    s = s + " " + str(x / 4) + " " + str(x % 4);
    s = s + " " + str(x / 1024) + " " + str(x % 1024);
    s = s + " " + str(x / 1073741824) + " " + str(x % 1073741824);
    s = s + " " + str(x / 3) + " " + str(x % 3);
    s = s + " " + str(x / 7) + " " + str(x % 7);
    s = s + " " + str(x / 10) + " " + str(x % 10);
    s = s + " " + str(x / 17) + " " + str(x % 17);
    s = s + " " + str(x / 1009) + " " + str(x % 1009);
    s = s + " " + str(x / 1000000007) + " " + str(x % 1000000007);
    s = s + " " + str(x / 2147483647) + " " + str(x % 2147483647);
    s = s + " " + str(x / (-2)) + " " + str(x % (-2));
    s = s + " " + str(x / (-3)) + " " + str(x % (-3));
    s = s + " " + str(x / (-8)) + " " + str(x % (-8));
    s = s + " " + str(x / (-1009)) + " " + str(x % (-1009));
    s = s + " " + str(x / (-1)) + " " + str(x % (-1));
    s = s + " " + str(x / 1) + " " + str(x % 1);
    return s;
}
let xs = [-9223372036854775807 - 1, -9223372036854775807, -1000000, -1025, -1024, -1023, -17, -9, -8, -7, -3, -2, -1, 0, 1, 2, 3, 7, 8, 9, 17, 1023, 1024, 1025, 999999, 9223372036854775806, 9223372036854775807];
for i in 0..len(xs) {
    print(str(xs[i]) + ":" + by_constants(xs[i]));
}
