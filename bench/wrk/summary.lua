-- The summary every scenario prints: one line of key=value pairs that bench/run.sh turns into
-- a table row. Loaded with dofile by each script, relative to the repository's root.
-- units= is what the scenario counts: the sum of the threads' global `units` where the script
-- keeps one (S1: completed payments), else the requests answered with a status below 400: a
-- 4xx or 5xx answer is an error, not throughput (fast 404s would make S2 or S3 look faster).
-- errors= is wrk's errors plus the sum of the threads' global `failed` where the script keeps
-- one (S1: answers below 400 that did not move the payment on, such as DECLINED).
local threads = {}

setup = function(thread)
  table.insert(threads, thread)
end

done = function(summary, latency, requests)
  local units, failed = 0, 0
  for _, thread in ipairs(threads) do
    units = units + (thread:get("units") or 0)
    failed = failed + (thread:get("failed") or 0)
  end
  if #threads == 0 or threads[1]:get("units") == nil then
    units = summary.requests - summary.errors.status
  end
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.status + summary.errors.timeout + failed
  io.write(string.format("RESULT requests=%d units=%d seconds=%.3f p50=%.2f p99=%.2f errors=%d non2xx=%d\n",
    summary.requests, units, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors, summary.errors.status))
end
