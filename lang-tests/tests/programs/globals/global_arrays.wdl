// Global arrays shared by functions.
var stack: [int] = [];
fn push_it(v: int) { push(stack, v); }
fn pop_it() -> int { return pop(stack); }
push_it(1);
push_it(2);
push_it(3);
print(pop_it());
print(stack);
let table = [0; 10];
fn record(i: int) { table[i % 10] += 1; }
for i in 0..25 { record(i * 3); }
print(table);
var count = 0;
fn counted() -> int { count += 1; return count; }
print(counted() + counted() * 10);
print(count);
