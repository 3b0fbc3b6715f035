-- pipeline.lua: HTTP/1.1 pipelining for wrk, 16 requests per write.
--
--   wrk -t1 -c50 -d5s -s bench/e2e/pipeline.lua http://127.0.0.1:8080/plaintext
--
-- Every write carries 16 copies of the request (same path, and the headers
-- given with -H); wrk writes the next batch once all 16 responses have been
-- read. This is the load that shows whether a server coalesces the responses
-- of one batch into one write. Results are printed by report.lua (done()).

local depth = 16

-- Load report.lua from this script's own directory, wherever wrk runs from.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "report.lua")

local batch

function init(args)
   local one = wrk.format(nil, wrk.path)
   local copies = {}
   for i = 1, depth do copies[i] = one end
   batch = table.concat(copies)
end

function request()
   return batch
end
