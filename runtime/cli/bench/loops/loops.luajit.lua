-- Nested integer loops (reference for loops.wdl). Usage: luajit loops.luajit.lua N
-- LuaJIT dialect (Lua 5.1): numbers are doubles, no integer division or xor operator.
local function main(n)
  local total = 0
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      total = total + bit.bxor(i * j, i + j) % 7
    end
  end
  print(total)
end
main(tonumber(arg[1] or "15000"))
