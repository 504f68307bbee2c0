-- S2: GET /api/v1/payments/{id} of random existing payments (ids from TOLLGATE_BENCH_IDS).
local key = os.getenv("TOLLGATE_BENCH_KEY")
local ids = {}
for line in io.lines(os.getenv("TOLLGATE_BENCH_IDS")) do
  ids[#ids + 1] = line
end

function init(args)
  math.randomseed(os.time() + (tonumber(tostring({}):sub(8)) or 0))
end

request = function()
  return wrk.format("GET", "/api/v1/payments/" .. ids[math.random(1, #ids)], {["Authorization"] = "Bearer " .. key})
end
dofile("bench/wrk/summary.lua")
