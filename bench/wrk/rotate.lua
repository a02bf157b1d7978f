-- Rotates through prepared requests and fails loudly on any wrong answer.
--
--   wrk -t1 -c16 -d10s --latency -s bench/wrk/rotate.lua URL -- REQUESTS.lua [EXPECTED_STATUS]
--
-- REQUESTS.lua (written by bench/mcp.py) returns a list of {method=, path=, headers=, body=}.
-- Every response whose status is not EXPECTED_STATUS (default 200), or whose body carries a
-- JSON-RPC error or an `isError: true` tool result, is counted; bench/mcp.py fails the round
-- when either count is not zero. The last line printed is machine-readable.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local specs = dofile(args[1])
  expected = tonumber(args[2] or "200")
  prepared = {}
  for k, s in ipairs(specs) do
    prepared[k] = wrk.format(s.method, s.path, s.headers, s.body)
  end
  count = #prepared
  cursor = 0
  bad_status = 0
  bad_body = 0
end

function request()
  cursor = cursor % count + 1
  return prepared[cursor]
end

function response(status, headers, body)
  if status ~= expected then
    bad_status = bad_status + 1
  elseif body ~= nil and (string.find(body, '"error":', 1, true)
      or string.find(body, '"isError":%s*true')) then
    bad_body = bad_body + 1
  end
end

function done(summary, latency, requests)
  local status, body = 0, 0
  for _, t in ipairs(threads) do
    status = status + t:get("bad_status")
    body = body + t:get("bad_body")
  end
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d bad_status=%d bad_body=%d socket_errors=%d "
      .. "p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, status, body,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
