-- One hot while loop run once (reference for hotloop.wdl). Usage: lua5.4 hotloop.lua N
local function main(n)
  local i, t = 0, 0
  while i < n do
    t = t + (i ~ (i >> 3)) % 7
    i = i + 1
  end
  print(t)
end
main(math.tointeger(tonumber(arg[1] or "200000000")))
