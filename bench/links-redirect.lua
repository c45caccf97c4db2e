-- wrk script of bench/links-redirect.ts: GET /{code} over a fixed list of real short codes (one path a line, the file
-- given as the first argument), the domain as Host and a phone's user agent. Thread k of T asks paths k, k+T, k+2T...
-- in turn; done() prints one JSON line (WRK_RESULT) with the counts, latency percentiles and requests set up per thread.
-- bench/links-redirect-paced.lua runs this script at a constant offered rate (pacedDelay, below).
local threads, counter = {}, 1

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local paths, n, i, stride, head, tail = {}, 0, 0, 1, "", ""
sent = 0
-- paced runs: slots on the schedule, late sends, the worst lateness and lateness in 0.1 ms steps (read by done())
slots, late, lateMaxUs, lateHist = 0, 0, 0, {}
local interval, nextSlot = 0, nil

function init(args)
  for line in io.lines(args[1]) do
    n = n + 1
    paths[n] = line
  end
  stride = tonumber(args[4])
  i = id - 1
  head = "GET "
  tail = " HTTP/1.1\r\nHost: " .. args[2] .. "\r\nUser-Agent: " .. args[3] .. "\r\nAccept: */*\r\n\r\n"
  local rate = tonumber(args[5] or "0") or 0
  if rate > 0 then interval = 1000 / rate end
end

-- A constant offered rate (the thread's, args[5] requests/s), as wrk2 gives, not as fast as the server answers: the
-- thread's sends are slots on a fixed schedule (start + k / rate). After each answer the connection takes the next slot
-- and waits for it (wrk's delay(): whole ms, rounded). A slot that passed before any connection was free to take it is
-- a late send, sent at once: counted with its lateness, because wrk's latency starts at the actual send and alone would
-- hide a server that falls behind (coordinated omission).
local ffi = require("ffi")
ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } sb_timespec; int clock_gettime(int, sb_timespec *); ]]
local ts = ffi.new("sb_timespec")

function pacedDelay()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  local now = tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
  if nextSlot == nil then nextSlot = now end
  nextSlot = nextSlot + interval
  slots = slots + 1
  local d = nextSlot - now
  if d >= 0 then return math.floor(d + 0.5) end
  local us = math.floor(-d * 1000)
  late = late + 1
  if us > lateMaxUs then lateMaxUs = us end
  local b = math.floor(us / 100)
  lateHist[b] = (lateHist[b] or 0) + 1
  return 0
end

function request()
  local p = paths[(i % n) + 1]
  i = i + stride
  sent = sent + 1
  return head .. p .. tail
end

function done(summary, latency, requests)
  local per, slotN, lateN, lateMax, hist, top = {}, 0, 0, 0, {}, 0
  for _, t in ipairs(threads) do
    per[#per + 1] = tostring(t:get("sent"))
    slotN = slotN + t:get("slots")
    lateN = lateN + t:get("late")
    if t:get("lateMaxUs") > lateMax then lateMax = t:get("lateMaxUs") end
    for b, c in pairs(t:get("lateHist")) do
      hist[b] = (hist[b] or 0) + c
      if b > top then top = b end
    end
  end
  -- the lateness that 1 % of the slots exceed (0 when fewer than 1 % were late)
  local lateP99, allowed, seen = 0, math.floor(slotN / 100), 0
  if lateN > allowed then
    for b = top, 0, -1 do
      seen = seen + (hist[b] or 0)
      if seen > allowed then lateP99 = b * 100; break end
    end
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"sent":[%s],"slots":%d,"late":%d,"lateMaxUs":%d,"lateP99Us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, table.concat(per, ","), slotN, lateN, lateMax, lateP99))
end
