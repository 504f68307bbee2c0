-- S3: the merchant API's payment list over the whole table at TOLLGATE_BENCH_OFFSET.
local auth = os.getenv("TOLLGATE_BENCH_BASIC")
local path = "/merchant-api/v1/payments?limit=50&created.gte=2000-01-01T00:00:00&offset=" ..
  (os.getenv("TOLLGATE_BENCH_OFFSET") or "0")

request = function()
  return wrk.format("GET", path, {["Authorization"] = "Basic " .. auth})
end
-- Shared summary: one line of key=value pairs the run script turns into the table.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d seconds=%.3f p50=%.2f p99=%.2f errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors, summary.errors.status))
end
