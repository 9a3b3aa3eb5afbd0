-- Dense matrix multiplication (reference for matmul.wdl). Usage: lua5.4 matmul.lua N
-- Loop variables are 0-based as in the Waddle program; tables are 1-based.
local function trunc(v)
  if v < 0 then return math.tointeger(math.ceil(v)) end
  return math.tointeger(math.floor(v))
end

local function matrix(n)
  local m = {}
  for i = 1, n do
    local row = {}
    for j = 1, n do row[j] = 0.0 end
    m[i] = row
  end
  return m
end

local function main(n)
  local a, b = matrix(n), matrix(n)
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      a[i + 1][j + 1] = ((i * j) % 7 - 3) + 0.0
      b[i + 1][j + 1] = ((i + 2 * j) % 5 - 2) + 0.0
    end
  end
  local c = matrix(n)
  for i = 1, n do
    local ai, ci = a[i], c[i]
    for k = 1, n do
      local aik, bk = ai[k], b[k]
      for j = 1, n do ci[j] = ci[j] + aik * bk[j] end
    end
  end
  local trace, sum = 0.0, 0.0
  for i = 0, n - 1 do
    trace = trace + c[i + 1][i + 1]
    for j = 0, n - 1 do sum = sum + c[i + 1][j + 1] * ((j % 3 + 1) + 0.0) end
  end
  print(trunc(trace))
  print(trunc(sum))
end
main(math.tointeger(tonumber(arg[1] or "748")))
