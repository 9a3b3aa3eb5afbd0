-- Recursive Fibonacci (reference for fib.wdl). Usage: lua5.4 fib.lua N
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local n = math.tointeger(tonumber(arg[1] or "40"))
print(fib(n))
