-- Nested integer loops (reference for loops.wdl). Usage: lua5.4 loops.lua N
local function main(n)
  local total = 0
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      total = total + ((i * j) ~ (i + j)) % 7
    end
  end
  print(total)
end
main(math.tointeger(tonumber(arg[1] or "15000")))
