-- Collatz trajectories (reference for collatz.wdl). Usage: lua5.4 collatz.lua N
local function main(n)
  local total, best, best_start = 0, 0, 0
  for start = 1, n - 1 do
    local x, steps = start, 0
    while x ~= 1 do
      if x % 2 == 0 then x = x // 2 else x = 3 * x + 1 end
      steps = steps + 1
    end
    total = total + steps
    if steps > best then
      best = steps
      best_start = start
    end
  end
  print(total)
  print(best_start)
  print(best)
end
main(math.tointeger(tonumber(arg[1] or "1000000")))
