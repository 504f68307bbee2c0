-- S3: the merchant API's payment list over the whole table at TOLLGATE_BENCH_OFFSET.
local auth = os.getenv("TOLLGATE_BENCH_BASIC")
local path = "/merchant-api/v1/payments?limit=50&created.gte=2000-01-01T00:00:00&offset=" ..
  (os.getenv("TOLLGATE_BENCH_OFFSET") or "0")

request = function()
  return wrk.format("GET", path, {["Authorization"] = "Basic " .. auth})
end
dofile("bench/wrk/summary.lua")
