-- wrk script of bench/links-redirect.ts: GET /{code} over a fixed list of real short codes (one path a line, the file
-- given as the first argument), the domain as Host and a phone's user agent. Thread k of T asks paths k, k+T, k+2T...
-- in turn; done() prints one JSON line (WRK_RESULT) with the counts, latency percentiles and requests set up per thread.
local threads, counter = {}, 1

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local paths, n, i, stride, head, tail = {}, 0, 0, 1, "", ""
sent = 0

function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    paths[n] = line
  end
  stride = tonumber(args[4])
  i = id - 1
  head = "GET "
  tail = " HTTP/1.1\r\nHost: " .. args[2] .. "\r\nUser-Agent: " .. args[3] .. "\r\nAccept: */*\r\n\r\n"
end

function request()
  local p = paths[(i % n) + 1]
  i = i + stride
  sent = sent + 1
  return head .. p .. tail
end

function done(summary, latency, requests)
  local per = {}
  for _, t in ipairs(threads) do per[#per + 1] = tostring(t:get("sent")) end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"sent":[%s]}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, table.concat(per, ",")))
end
