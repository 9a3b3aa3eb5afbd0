-- Recursive Fibonacci (reference for fib.wdl). Usage: luajit fib.luajit.lua N
-- LuaJIT dialect (Lua 5.1): numbers are doubles, no integer division or xor operator.
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local n = tonumber(arg[1] or "40")
print(fib(n))
