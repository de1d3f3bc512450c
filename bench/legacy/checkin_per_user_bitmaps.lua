-- The check-in script before the block layout (issue 11), kept for lantern-bench-checkin-layout only:
-- it measures the old layout next to the new one in the same run.
-- checkin.lua: signs one day for one user atomically and queues its log entry (DESIGN §4).
-- One round trip: the reply carries the month's bits, so streak and count need no second call.
-- KEYS[1] sign bitmap of the day's month      KEYS[2] make-up bitmap of that month
-- KEYS[3] sign bitmap of the previous month (read only, rolling policy)
-- KEYS[4] the shard's set of uids signed that day      KEYS[5] the shard's log queue
-- ARGV[1] uid            ARGV[2] date YYYY-MM-DD    ARGV[3] day of month (1..31)
-- ARGV[4] days in month  ARGV[5] days in previous month
-- ARGV[6] kind: normal | makeup                     ARGV[7] rolling streaks: 0 | 1
-- ARGV[8] grant points: 0 | 1                       ARGV[9] make-up quota for the month
-- ARGV[10] day-set TTL in seconds                   ARGV[11] operator    ARGV[12] reason
-- ARGV[13] time in ms    ARGV[14..] reward table: points for day 1, 2, ... of a streak
-- Reply: {status, month bits, previous month bits, points}
--   status: 'ok' | 'already' (nothing changed) | 'quota' (make-up refused, nothing changed)
--   bits as BITFIELD GET u<days> 0 returns them: day 1 is the most significant bit.
local day = tonumber(ARGV[3])
local days = tonumber(ARGV[4])
local prevDays = tonumber(ARGV[5])
local kind = ARGV[6]
local rolling = ARGV[7] == '1'

local function monthBits(key, n)
  return redis.call('BITFIELD', key, 'GET', 'u' .. n, 0)[1]
end

local function isSet(bits, n, d)
  return math.floor(bits / 2 ^ (n - d)) % 2 == 1
end

local prevBits = 0
if rolling then
  prevBits = monthBits(KEYS[3], prevDays)
end

if redis.call('GETBIT', KEYS[1], day - 1) == 1 then
  return {'already', monthBits(KEYS[1], days), prevBits, 0}
end

if kind == 'makeup' then
  if redis.call('BITCOUNT', KEYS[2]) >= tonumber(ARGV[9]) then
    return {'quota', monthBits(KEYS[1], days), prevBits, 0}
  end
  redis.call('SETBIT', KEYS[2], day - 1, 1)
end
redis.call('SETBIT', KEYS[1], day - 1, 1)
local bits = monthBits(KEYS[1], days)

local points = 0
if kind == 'normal' or ARGV[8] == '1' then
  local tableSize = #ARGV - 13
  local run = 0
  local d = day
  while d >= 1 and run < tableSize and isSet(bits, days, d) do
    run = run + 1
    d = d - 1
  end
  if d == 0 and rolling then
    d = prevDays
    while d >= 1 and run < tableSize and isSet(prevBits, prevDays, d) do
      run = run + 1
      d = d - 1
    end
  end
  points = tonumber(ARGV[13 + run])
end

redis.call('SADD', KEYS[4], ARGV[1])
redis.call('EXPIRE', KEYS[4], tonumber(ARGV[10]))
redis.call('LPUSH', KEYS[5], cjson.encode({
  uid = ARGV[1], date = ARGV[2], kind = kind, points = points,
  operator = ARGV[11], reason = ARGV[12], at = tonumber(ARGV[13])
}))
return {'ok', bits, prevBits, points}
