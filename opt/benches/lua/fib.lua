-- fib(27), the same program as the `interp/fib27` benchmark.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local reps = 10
local t = os.clock()
local r
for _ = 1, reps do r = fib(27) end
print(string.format("fib27 = %d: %.2f ms", r, (os.clock() - t) / reps * 1000))
