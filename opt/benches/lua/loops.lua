-- The `interp/loops1000x1000` benchmark; `total` is a global as in loops.wdl.
total = 0
local function loops(n)
  total = 0
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      total = total + ((i * j) ~ (i + j)) % 7
    end
  end
  return total
end
local reps = 10
local t = os.clock()
local r
for _ = 1, reps do r = loops(1000) end
print(string.format("loops1000 = %d: %.2f ms", r, (os.clock() - t) / reps * 1000))
