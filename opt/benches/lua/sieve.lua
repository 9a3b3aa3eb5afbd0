-- The `interp/sieve200000` benchmark.
local function sieve(n)
  local flags = {}
  for i = 0, n do flags[i] = true end
  flags[0] = false; flags[1] = false
  local i = 2
  while i * i <= n do
    if flags[i] then
      local j = i * i
      while j <= n do flags[j] = false; j = j + i end
    end
    i = i + 1
  end
  local count = 0
  for k = 0, n do if flags[k] then count = count + 1 end end
  return count
end
local reps = 20
local t = os.clock()
local r
for _ = 1, reps do r = sieve(200000) end
print(string.format("sieve200000 = %d: %.2f ms", r, (os.clock() - t) / reps * 1000))
