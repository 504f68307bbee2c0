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
-- Shared summary: one line of key=value pairs the run script turns into the table.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d seconds=%.3f p50=%.2f p99=%.2f errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors, summary.errors.status))
end
