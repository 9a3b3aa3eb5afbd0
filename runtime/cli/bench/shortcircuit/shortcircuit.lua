local function classify(i, k)
  local a = i * 7 + k
  local heavy = (a * a + 13) % 1009
  local light = a % 17
  if (i % 3 == 0 or i % 5 == 0) and a % 7 ~= 1 then
    return heavy + light
  end
  if i % 4 == 1 and (light > 8 or a % 11 == 0) then
    return heavy + 17 - light
  end
  return light
end

local function main(n)
  local acc = 0
  local hits = 0
  for i = 0, n - 1 do
    local c = classify(i, hits % 5)
    acc = (acc + c) % 1000000007
    if c > 500 and (i % 2 == 0 or c % 3 == 0) then
      hits = hits + 1
    end
  end
  print(acc)
  print(hits)
end

main(tonumber(arg[1]) or 13000000)
