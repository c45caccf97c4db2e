-- bench/links-redirect.lua at a constant offered rate (its fifth argument: each thread's requests/s; RATE= of
-- bench/links-redirect.ts). A script of its own because wrk waits on delay() after every answer once a script defines
-- it: the unpaced runs keep answering as fast as the server does, with no timer between requests.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "links-redirect.lua")

function delay()
  return pacedDelay()
end
