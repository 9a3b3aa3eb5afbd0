// `+` concatenates strings.
let a = "Hello";
let b = "world";
print(a + ", " + b + "!");
print("" + "");
print("x" + "");
var s = "";
for i in 0..5 { s = s + str(i); }
print(s);
s += "!";
print(s);
print("caf" + "é");
