local function price(q, day, seed)
  local bulk = q > 40
  local weekend = day % 7 >= 5
  local member = seed % 10 < 3
  local base = q * 100 + seed % 50
  local bulk_cut = base // 8
  local weekend_fee = (q * 37 + day * 11) % 97 + 15
  local member_pts = (base // 3 + day) % 251
  local p = base
  if bulk then
    p = p - bulk_cut
  end
  if weekend then
    p = p + weekend_fee
  end
  if member then
    p = p - member_pts
  end
  if bulk and weekend then
    p = p + bulk_cut % 13
  end
  if member or bulk then
    p = p - 1
  end
  if not member and not weekend then
    p = p + base % 7
  end
  return p
end

local function main(n)
  local seed = 1
  local total = 0
  local discounted = 0
  for i = 0, n - 1 do
    seed = (seed * 75 + 74) % 65537
    local q = seed % 80 + 1
    local p = price(q, i % 365, seed)
    total = (total + p + 1000) % 1000000007
    if p < q * 100 then
      discounted = discounted + 1
    end
  end
  print(total)
  print(discounted)
end

main(tonumber(arg[1]) or 15000000)
