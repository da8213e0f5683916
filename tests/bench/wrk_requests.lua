-- wrk script of the bench's HTTP phase (tests/bench/wrk.py). Run with as many threads as connections, so
-- each connection has a thread, and so a file, of its own: thread i sends the requests of ARGS[1]/i.tsv
-- (lines "path<TAB>bearer token or nothing<TAB>JSON body") in order, one at a time, from the first again when
-- they run out (a game's commands then fail, and the bench says so). At the end it prints one JSON line:
-- responses, seconds, failures (and the last one's status and body), the latency histogram in microseconds.

local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  prepared = {}
  answered = 0
  failed = 0
  failure = ""
  for line in io.lines(args[1] .. "/" .. id .. ".tsv") do
    local path, token, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = { ["Content-Type"] = "application/json" }
    if token ~= "" then
      headers["Authorization"] = "Bearer " .. token
    end
    prepared[#prepared + 1] = wrk.format("POST", path, headers, body)
  end
end

-- The next request is the one after the last answered (one at a time per connection): request() itself
-- counts nothing, as wrk calls it once more on thread 0 to check the script before the run.
function request()
  return prepared[answered % #prepared + 1]
end

function response(status, headers, body)
  answered = answered + 1
  if status ~= 200 then
    failed = failed + 1
    failure = (status .. " " .. body:sub(1, 200)):gsub('[%c"\\]', " ")  -- as a JSON string as it is
  end
end

function done(summary, latency, requests)
  local failed, failure = 0, ""
  for _, thread in ipairs(threads) do
    failed = failed + thread:get("failed")
    if thread:get("failure") ~= "" then
      failure = thread:get("failure")
    end
  end
  local histogram = {}
  for i = 1, #latency do
    local value, count = latency(i)
    histogram[#histogram + 1] = string.format("[%d,%d]", value, count)
  end
  local errors = summary.errors
  io.write(string.format(
    '{"responses":%d,"seconds":%f,"failed":%d,"failure":"%s","socket_errors":%d,"latency_us":[%s]}\n',
    summary.requests, summary.duration / 1e6, failed, failure,
    errors.connect + errors.read + errors.write + errors.timeout, table.concat(histogram, ",")
  ))
end
