-- The summary every scenario prints: one line of key=value pairs that bench/run.sh turns into
-- a table row. Loaded with dofile by each script, relative to the repository's root.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d seconds=%.3f p50=%.2f p99=%.2f errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    errors, summary.errors.status))
end
