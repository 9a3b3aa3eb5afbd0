// Growing arrays by push and reading them back.
var xs: [int] = [];
for i in 0..10000 { push(xs, i * i); }
print(len(xs));
var sum = 0;
for i in 0..len(xs) { sum += xs[i]; }
print(sum);
while len(xs) > 3 { let _x = pop(xs); }
print(xs);
var words: [str] = [];
for i in 0..5 { push(words, "w" + str(i)); }
print(words);
