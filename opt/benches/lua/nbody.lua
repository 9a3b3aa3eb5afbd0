-- The `interp/nbody1000` benchmark: 1000 `advance` steps over global arrays
-- (globals, like the Waddle program's top-level arrays).
local sqrt = math.sqrt
local PI = 3.141592653589793
local SOLAR_MASS = 4.0 * PI * PI
local DAYS = 365.24
xs = {0.0, 4.84143144246472090e+00, 8.34336671824457987e+00, 1.28943695621391310e+01, 1.53796971148509165e+01}
ys = {0.0, -1.16032004402742839e+00, 4.12479856412430479e+00, -1.51111514016986312e+01, -2.59193146099879641e+01}
zs = {0.0, -1.03622044471123109e-01, -4.03523417114321381e-01, -2.23307578892655734e-01, 1.79258772950371181e-01}
vxs = {0.0, 1.66007664274403694e-03 * DAYS, -2.76742510726862411e-03 * DAYS, 2.96460137564761618e-03 * DAYS, 2.68067772490389322e-03 * DAYS}
vys = {0.0, 7.69901118419740425e-03 * DAYS, 4.99852801234917238e-03 * DAYS, 2.37847173959480950e-03 * DAYS, 1.62824170038242295e-03 * DAYS}
vzs = {0.0, -6.90460016972063023e-05 * DAYS, 2.30417297573763929e-05 * DAYS, -2.96589568540237556e-05 * DAYS, -9.51592254519715870e-05 * DAYS}
ms = {SOLAR_MASS, 9.54791938424326609e-04 * SOLAR_MASS, 2.85885980666130812e-04 * SOLAR_MASS, 4.36624404335156298e-05 * SOLAR_MASS, 5.15138902046611451e-05 * SOLAR_MASS}
local px, py, pz = 0.0, 0.0, 0.0
for i = 1, #ms do px = px + vxs[i] * ms[i]; py = py + vys[i] * ms[i]; pz = pz + vzs[i] * ms[i] end
vxs[1] = -px / SOLAR_MASS; vys[1] = -py / SOLAR_MASS; vzs[1] = -pz / SOLAR_MASS
local function advance(dt)
  local n = #ms
  for i = 1, n do
    for j = i + 1, n do
      local dx, dy, dz = xs[i] - xs[j], ys[i] - ys[j], zs[i] - zs[j]
      local d2 = dx * dx + dy * dy + dz * dz
      local mag = dt / (d2 * sqrt(d2))
      vxs[i] = vxs[i] - dx * ms[j] * mag; vys[i] = vys[i] - dy * ms[j] * mag; vzs[i] = vzs[i] - dz * ms[j] * mag
      vxs[j] = vxs[j] + dx * ms[i] * mag; vys[j] = vys[j] + dy * ms[i] * mag; vzs[j] = vzs[j] + dz * ms[i] * mag
    end
  end
  for i = 1, n do xs[i] = xs[i] + dt * vxs[i]; ys[i] = ys[i] + dt * vys[i]; zs[i] = zs[i] + dt * vzs[i] end
end
local function steps(k)
  for _ = 1, k do advance(0.01) end
  local s = 0.0
  for i = 1, #ms do s = s + xs[i] end
  return s
end
print(string.format("checksum after 1000 steps = %.17g", steps(1000)))
local reps = 20
local t = os.clock()
for _ = 1, reps do steps(1000) end
print(string.format("nbody1000: %.2f ms", (os.clock() - t) / reps * 1000))
