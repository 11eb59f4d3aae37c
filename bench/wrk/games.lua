-- wrk script for bench/http_load.py: one thread, one connection, one game.
--   BENCH_GAMES_FILE: lines "game_id token_seat0 token_seat1"
--   BENCH_MODE=play: each thread plays its Diamants game as both players
--     (GET legal-actions as the seat that must act, POST one of them at
--     random; a new table when the game ends);
--   BENCH_MODE=read: each thread reads its game's state (GET /games/{id}).
--   BENCH_RATE: moves (or reads) per second per game; 0 = as fast as the
--     server answers (a closed loop: latency is then connections / throughput).
-- Latency is timed here per kind of request (one request in flight per
-- connection) and printed by done() as one JSON line starting "BENCH ".
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk_id, bench_timespec *tp);
]]
local clock = ffi.new("bench_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, clock) -- CLOCK_MONOTONIC
  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

local API = "/api/v1/games"
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  local n = 0
  for line in io.lines(os.getenv("BENCH_GAMES_FILE")) do
    n = n + 1
    if n == counter then
      local gid, t0, t1 = line:match("(%d+) (%S+) (%S+)")
      thread:set("gid", gid)
      thread:set("t0", t0)
      thread:set("t1", t1)
    end
  end
  thread:set("id", counter)
  table.insert(threads, thread)
end

-- Per-thread state (each thread has its own Lua state). One flat table of
-- milliseconds per kind of request: wrk's thread:get() crashes on nested tables.
local KINDS = { "legal", "act", "poll", "create", "join", "read" }
latency_legal, latency_act, latency_poll = {}, {}, {}
latency_create, latency_join, latency_read = {}, {}, {}
errors = {}
moves = 0
local mode, phase, seat, action, started, kind, empties, wait, period, next_due, moved

function init(args)
  mode = os.getenv("BENCH_MODE") or "play"
  phase = mode == "read" and "read" or "legal"
  seat, empties, wait = 0, 0, 0
  math.randomseed(id * 7919)
  local rate = tonumber(os.getenv("BENCH_RATE") or "0")
  period = rate > 0 and 1000 / rate or 0
  -- Spread the games' first requests over one period.
  next_due = now_ms() + math.random() * period
  wait = math.floor(next_due - now_ms())
end

-- Wait until this game's next move (or read) is due; a game that fell
-- behind starts again from now rather than bursting to catch up.
local function pace()
  if period == 0 then return 0 end
  local now = now_ms()
  next_due = math.max(next_due + period, now - period)
  return math.max(0, math.floor(next_due - now))
end

local function headers(token, json)
  local h = { Authorization = "Bearer " .. token }
  if json then h["Content-Type"] = "application/json" end
  return h
end

local function token(s) return s == 0 and t0 or t1 end

function delay()
  return wait
end

function request()
  started = now_ms()
  kind = phase
  if phase == "read" then
    seat = 1 - seat
    return wrk.format("GET", API .. "/" .. gid, headers(token(seat)))
  elseif phase == "legal" then
    return wrk.format("GET", API .. "/" .. gid .. "/legal-actions", headers(token(seat)))
  elseif phase == "act" then
    return wrk.format("POST", API .. "/" .. gid .. "/actions", headers(token(seat), true),
      '{"action": ' .. action .. '}')
  elseif phase == "poll" then
    return wrk.format("GET", API .. "/" .. gid, headers(t0))
  elseif phase == "create" then
    return wrk.format("POST", API, headers(t0, true),
      '{"ruleset": "diamants", "num_seats": 2, "turn_timeout": 3600}')
  else -- join
    return wrk.format("POST", API .. "/" .. gid .. "/join", headers(t1))
  end
end

-- After a game detail (a move's answer or a poll): who acts next?
local function follow(body)
  wait = 0
  if not body:find('"finished_at":%s*null') then
    phase = "create"
    return
  end
  local to_act = body:match('"to_act":%s*(%b[])') or "[]"
  local next_seat = to_act:match('"seat":%s*(%d+)')
  if next_seat then
    seat, phase = tonumber(next_seat), "legal"
    if moved then wait, moved = pace(), false end
  else
    phase, wait = "poll", 20 -- the worker is rolling the dice
  end
end

function response(status, _, body)
  local took = now_ms() - started
  local samples = _G["latency_" .. kind]
  samples[#samples + 1] = took
  if status >= 400 then
    local key = kind .. " " .. status
    errors[key] = (errors[key] or 0) + 1
  end
  wait = 0
  if kind == "read" then
    wait = pace()
    return
  elseif kind == "legal" then
    local list = status == 200 and body:match('"actions":%s*(%b[])') or "[]"
    local choices = {}
    for item in list:gmatch("%b{}") do choices[#choices + 1] = item end
    if #choices > 0 then
      action, phase, empties = choices[math.random(#choices)], "act", 0
    else
      seat, empties = 1 - seat, empties + 1
      if empties >= 2 then phase, wait = "poll", 20 end
    end
  elseif kind == "act" then
    if status == 201 then
      moves, moved = moves + 1, true
      follow(body)
    else
      phase = "poll"
    end
  elseif kind == "poll" then
    if status == 200 then follow(body) end
  elseif kind == "create" then
    gid = status == 201 and body:match('"id":%s*(%d+)') or gid
    phase = status == 201 and "join" or "poll"
  elseif kind == "join" then
    if status == 200 then follow(body) else phase = "poll" end
  end
end

local function percentile(sorted, fraction)
  if #sorted == 0 then return nil end
  local i = math.max(1, math.min(#sorted, math.ceil(#sorted * fraction)))
  return sorted[i]
end

function done(summary)
  local all, errs, total_moves = {}, {}, 0
  for _, thread in ipairs(threads) do
    total_moves = total_moves + (thread:get("moves") or 0)
    for _, k in ipairs(KINDS) do
      all[k] = all[k] or {}
      for _, v in ipairs(thread:get("latency_" .. k) or {}) do table.insert(all[k], v) end
    end
    for k, v in pairs(thread:get("errors") or {}) do errs[k] = (errs[k] or 0) + v end
  end
  local parts = {}
  for k, samples in pairs(all) do
    table.sort(samples)
    if #samples > 0 then
      table.insert(parts, string.format('"%s": {"count": %d, "p50": %.2f, "p99": %.2f, "max": %.2f}',
        k, #samples, percentile(samples, 0.5), percentile(samples, 0.99), samples[#samples]))
    end
  end
  local errparts = {}
  for k, v in pairs(errs) do table.insert(errparts, string.format('"%s": %d', k, v)) end
  local e = summary.errors
  io.write(string.format(
    'BENCH {"duration_s": %.3f, "moves": %d, "requests": %d, "latency": {%s}, "http_errors": {%s}, ' ..
    '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}}\n',
    summary.duration / 1e6, total_moves, summary.requests, table.concat(parts, ", "),
    table.concat(errparts, ", "), e.connect, e.read, e.write, e.timeout))
end
