// Assigning through nested indexes.
var m = [[0; 3]; 3];
for i in 0..3 {
    for j in 0..3 {
        m[i][j] = i * 3 + j;
    }
}
print(m);
m[2][2] += 100;
m[0] = [7, 7];
print(m);
let t = [[["a"]]];
t[0][0][0] = "b";
push(t[0], ["c"]);
print(t);
