// `/` truncates toward zero and `%` takes the sign of the dividend.
let ns = [7, -7, 7, -7, 1, -1, 0, 6, -6];
let ds = [2, 2, -2, -2, 3, 3, 5, 3, -3];
for i in 0..len(ns) {
    print(str(ns[i]) + " / " + str(ds[i]) + " = " + str(ns[i] / ds[i]) + ", % = " + str(ns[i] % ds[i]));
}
let min = -9223372036854775807 - 1;
print(min / -1);
print(min % -1);
print(min / 1);
print(min % 2);
print(min / 2);
print(9223372036854775807 / -1);
print(9223372036854775807 % 10);
