-- checkin.lua: signs one day for one user atomically and queues its log entry (DESIGN §4).
-- One round trip: the reply carries the month's bits, so streak and count need no second call.
-- The block layout (KeySchema, CheckinLayout): a user's month is a 32-bit word, bit 31 = day 1
-- ... bit 1 = day 31; a dense user's word is u32 number <slot> of its month block (SETBIT offset
-- slot * 32 + day - 1), a sparse user's is the field <uid> of its shard's sparse hash.
-- KEYS[1] sign words of the day's month: the month block, or the sparse hash
-- KEYS[2] make-up words of that month: the block's make-up hash (field <slot>), or the sparse
--         hash (field m<uid>)
-- KEYS[3] sign words of the previous month (read only, rolling policy), as KEYS[1]
-- KEYS[4] the shard's set of the month's block numbers (dense users only)
-- KEYS[5] the shard's log queue
-- ARGV[1] uid            ARGV[2] date YYYY-MM-DD    ARGV[3] day of month (1..31)
-- ARGV[4] days in month  ARGV[5] days in previous month
-- ARGV[6] kind: normal | makeup                     ARGV[7] rolling streaks: 0 | 1
-- ARGV[8] grant points: 0 | 1                       ARGV[9] make-up quota for the month
-- ARGV[10] place: "<block>:<slot>:<block bytes>" for a dense user, empty for a sparse one; a
--          missing block is created whole (zeros), so its allocation is exactly its size
-- ARGV[11] operator      ARGV[12] reason
-- ARGV[13] time in ms    ARGV[14..] reward table: points for day 1, 2, ... of a streak
-- Reply: {status, month bits, previous month bits, points}
--   status: 'ok' | 'already' (nothing changed) | 'quota' (make-up refused, nothing changed)
--   bits as `BITFIELD GET u<days> 0` of a per-user bitmap returned them: day 1 is the most
--   significant bit of a <days>-bit number.
local uid = ARGV[1]
local day = tonumber(ARGV[3])
local days = tonumber(ARGV[4])
local prevDays = tonumber(ARGV[5])
local kind = ARGV[6]
local rolling = ARGV[7] == '1'
local block, slot, blockBytes = string.match(ARGV[10], '^(%d+):(%d+):(%d+)$')
local dense = block ~= nil

local function word(key)
  if dense then
    return redis.call('BITFIELD', key, 'GET', 'u32', '#' .. slot)[1]
  end
  return tonumber(redis.call('HGET', key, uid)) or 0
end

local function bit(d)
  return 2 ^ (32 - d)
end

local function isSet(w, d)
  return math.floor(w / bit(d)) % 2 == 1
end

local function asBits(w, n)
  return math.floor(w / bit(n))
end

local function popcount(w)
  local count = 0
  while w > 0 do
    count = count + w % 2
    w = math.floor(w / 2)
  end
  return count
end

local prevWord = 0
if rolling then
  prevWord = word(KEYS[3])
end

local w = word(KEYS[1])
if isSet(w, day) then
  return {'already', asBits(w, days), asBits(prevWord, prevDays), 0}
end

if kind == 'makeup' then
  local field = dense and slot or ('m' .. uid)
  local marks = tonumber(redis.call('HGET', KEYS[2], field)) or 0
  if popcount(marks) >= tonumber(ARGV[9]) then
    return {'quota', asBits(w, days), asBits(prevWord, prevDays), 0}
  end
  redis.call('HSET', KEYS[2], field, string.format('%.0f', marks + bit(day)))
end
w = w + bit(day)
if dense then
  if redis.call('EXISTS', KEYS[1]) == 0 then
    redis.call('SET', KEYS[1], string.rep('\0', tonumber(blockBytes)))
  end
  redis.call('SETBIT', KEYS[1], tonumber(slot) * 32 + day - 1, 1)
  redis.call('SADD', KEYS[4], block)
else
  redis.call('HSET', KEYS[1], uid, string.format('%.0f', w))
end

local points = 0
if kind == 'normal' or ARGV[8] == '1' then
  local tableSize = #ARGV - 13
  local run = 0
  local d = day
  while d >= 1 and run < tableSize and isSet(w, d) do
    run = run + 1
    d = d - 1
  end
  if d == 0 and rolling then
    d = prevDays
    while d >= 1 and run < tableSize and isSet(prevWord, d) do
      run = run + 1
      d = d - 1
    end
  end
  points = tonumber(ARGV[13 + run])
end

redis.call('LPUSH', KEYS[5], cjson.encode({
  uid = ARGV[1], date = ARGV[2], kind = kind, points = points,
  operator = ARGV[11], reason = ARGV[12], at = tonumber(ARGV[13])
}))
return {'ok', asBits(w, days), asBits(prevWord, prevDays), points}
