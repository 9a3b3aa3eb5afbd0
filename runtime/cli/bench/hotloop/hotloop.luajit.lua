-- One hot while loop run once (reference for hotloop.wdl). Usage: luajit hotloop.luajit.lua N
-- LuaJIT dialect (Lua 5.1): no integer xor or shift operators.
local function main(n)
  local i, t = 0, 0
  while i < n do
    t = t + bit.bxor(i, bit.rshift(i, 3)) % 7
    i = i + 1
  end
  print(t)
end
main(tonumber(arg[1] or "200000000"))
