-- Takeuchi function, repeated (reference for tak.wdl). Usage: lua5.4 tak.lua N
local function tak(x, y, z)
  if y < x then return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y)) end
  return z
end

local function main(n)
  local sum = 0
  for i = 0, n - 1 do sum = sum + tak(18, 12, 6 + i % 3) end
  print(sum)
end
main(math.tointeger(tonumber(arg[1] or "4000")))
