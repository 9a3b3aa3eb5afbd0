-- Mandelbrot set membership (reference for mandelbrot.wdl). Usage: luajit mandelbrot.luajit.lua N
-- LuaJIT dialect (Lua 5.1): numbers are doubles, no integer division or xor operator.
local function main(n)
  local count = 0
  local fn_ = n + 0.0
  for py = 0, n - 1 do
    local ci = 2.0 * py / fn_ - 1.0
    for px = 0, n - 1 do
      local cr = 2.0 * px / fn_ - 1.5
      local zr, zi = 0.0, 0.0
      local i = 0
      local inside = true
      while i < 50 do
        local tr = zr * zr - zi * zi + cr
        local ti = 2.0 * zr * zi + ci
        zr = tr
        zi = ti
        if zr * zr + zi * zi > 4.0 then
          inside = false
          break
        end
        i = i + 1
      end
      if inside then count = count + 1 end
    end
  end
  print(count)
end
main(tonumber(arg[1] or "1750"))
