-- Sieve of Eratosthenes, repeated (reference for sieve.wdl). Usage: lua5.4 sieve.lua N
local function sieve(n)
  local flags = {}
  for i = 0, n do flags[i + 1] = true end
  local count = 0
  local i = 2
  while i <= n do
    if flags[i + 1] then
      count = count + 1
      local k = i + i
      while k <= n do
        flags[k + 1] = false
        k = k + i
      end
    end
    i = i + 1
  end
  return count
end

local function main(n)
  local total = 0
  for r = 0, 9 do total = total + sieve(n + r) end
  print(total)
end
main(math.tointeger(tonumber(arg[1] or "3000000")))
