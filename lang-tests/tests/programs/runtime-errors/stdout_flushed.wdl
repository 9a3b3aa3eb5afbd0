// exit: 2
// stderr: runtime error: division by zero
// stderr: runtime-errors/stdout_flushed.wdl:9:23
// Output printed before a runtime error stays printed.
for i in 0..5 {
    print(i);
}
var k = 3;
while true { print(10 % k); k -= 1; }
