-- Spectral norm (reference for spectral_norm.wdl). Usage: luajit spectral_norm.luajit.lua N
-- LuaJIT dialect (Lua 5.1): numbers are doubles, no integer division or xor operator.
-- Indices i, j are 0-based as in the Waddle program; arrays are 1-based.
local function a(i, j)
  return 1.0 / (math.floor((i + j) * (i + j + 1) / 2) + i + 1)
end

local function mul_av(n, v, av)
  for i = 0, n - 1 do
    local sum = 0.0
    for j = 0, n - 1 do sum = sum + a(i, j) * v[j + 1] end
    av[i + 1] = sum
  end
end

local function mul_atv(n, v, atv)
  for i = 0, n - 1 do
    local sum = 0.0
    for j = 0, n - 1 do sum = sum + a(j, i) * v[j + 1] end
    atv[i + 1] = sum
  end
end

local function mul_atav(n, v, out, tmp)
  mul_av(n, v, tmp)
  mul_atv(n, tmp, out)
end

local function main(n)
  local u, v, tmp = {}, {}, {}
  for i = 1, n do u[i] = 1.0; v[i] = 0.0; tmp[i] = 0.0 end
  for _ = 1, 10 do
    mul_atav(n, u, v, tmp)
    mul_atav(n, v, u, tmp)
  end
  local vbv, vv = 0.0, 0.0
  for i = 1, n do
    vbv = vbv + u[i] * v[i]
    vv = vv + v[i] * v[i]
  end
  print(math.floor(math.sqrt(vbv / vv) * 1e9))
end
main(tonumber(arg[1] or "1900"))
