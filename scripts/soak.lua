-- soak.lua: the request mix of scripts/soak.sh, and its error accounting.
--
--   wrk -t2 -c256 -d60s --timeout 10s -s scripts/soak.lua http://127.0.0.1:PORT -- 'actor=<signed value>'
--
-- Each wrk thread cycles through six requests: /plaintext, /json, a small
-- static file (memory cache), a large one (sendfile), a path that does not
-- exist (404, expected) and /-/actor.json with the signed cookie given after
-- "--". done() prints one machine-readable line:
--   soak-result requests=N status_errors=N sent_404=N socket_errors=N p50_us=X p99_us=X
-- `status_errors` counts answers >= 400 (wrk's own count); `sent_404` the
-- requests written for the 404 route. The answers are not inspected here: a
-- response() hook makes wrk buffer every body, which turns the 2 MiB file
-- into a quadratic copy and the soak into a benchmark of wrk. So only 404s may
-- be status errors, and at most one per connection may be missing at the end
-- (written, not yet answered): sent_404 - connections <= status_errors <= sent_404.
-- soak.sh checks the signed cookie itself, before and after.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

local mix
local next_index = 0

function init(args)
   local cookie = args[1] or ""
   mix = {
      wrk.format("GET", "/plaintext"),
      wrk.format("GET", "/json"),
      wrk.format("GET", "/static/small.txt"),
      wrk.format("GET", "/static/large.bin"),
      wrk.format("GET", "/no/such/page"),
      wrk.format("GET", "/-/actor.json", { Cookie = cookie }),
   }
   sent_404 = 0
end

function request()
   next_index = next_index % #mix + 1
   if next_index == 5 then sent_404 = sent_404 + 1 end
   return mix[next_index]
end

function done(summary, latency, requests)
   local sent = 0
   for _, thread in ipairs(threads) do sent = sent + thread:get("sent_404") end
   local e = summary.errors
   io.write(string.format(
      "soak-result requests=%d status_errors=%d sent_404=%d socket_errors=%d p50_us=%.0f p99_us=%.0f\n",
      summary.requests, e.status, sent, e.connect + e.read + e.write + e.timeout,
      latency:percentile(50.0), latency:percentile(99.0)))
end
