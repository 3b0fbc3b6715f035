-- report.lua: wrk's end-of-run hook for bench/e2e/run.sh.
--
-- wrk's human summary rounds and changes units (us/ms/s, k/M); the harness
-- needs exact numbers, so done() prints one machine-readable line:
--   e2e-result requests=N duration_us=N p50_us=X p99_us=X errors=N
-- `requests` counts completed responses (with pipelining: each response of a
-- batch), which is what server CPU time is divided by. `errors` adds up
-- connect/read/write/timeout errors and status >= 400 answers.
-- Extra headers come from wrk's own -H flag (If-None-Match, Cookie).

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "e2e-result requests=%d duration_us=%d p50_us=%.1f p99_us=%.1f errors=%d\n",
      summary.requests, summary.duration,
      latency:percentile(50.0), latency:percentile(99.0),
      e.connect + e.read + e.write + e.timeout + e.status))
end
