-- checkin_migrate.lua: moves one user-month of the per-user bitmaps (the layout before issue 11)
-- into the block layout, atomically, and removes the old keys (`lanternd migrate-redis`).
-- Merges by OR with what the block layout holds already (check-ins that arrived meanwhile), so
-- running it twice, or after a crash, changes nothing more.
-- KEYS[1] old sign bitmap (bit d-1 = day d)     KEYS[2] old make-up bitmap
-- KEYS[3] new sign words: the month block, or the sparse hash
-- KEYS[4] new make-up words: the block's make-up hash, or the sparse hash
-- KEYS[5] the shard's set of the month's block numbers
-- ARGV[1] uid    ARGV[2] place: "<block>:<slot>:<block bytes>" for a dense user, empty for a
--                sparse one (a missing block is created whole, as checkin.lua does)
-- Reply: 1 when the user-month was moved, 0 when its old keys were gone already.
local uid = ARGV[1]
local block, slot, blockBytes = string.match(ARGV[2], '^(%d+):(%d+):(%d+)$')
local dense = block ~= nil

if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
-- u32 at offset 0 of an old bitmap is already a month word: day 1 in bit 31.
local signWord = redis.call('BITFIELD', KEYS[1], 'GET', 'u32', 0)[1]
local makeupWord = redis.call('BITFIELD', KEYS[2], 'GET', 'u32', 0)[1]

local function orWords(a, b)
  local result, place = 0, 1
  for _ = 1, 32 do
    local x, y = a % 2, b % 2
    if x == 1 or y == 1 then
      result = result + place
    end
    a, b, place = (a - x) / 2, (b - y) / 2, place * 2
  end
  return result
end

if signWord ~= 0 then
  if dense then
    if redis.call('EXISTS', KEYS[3]) == 0 then
      redis.call('SET', KEYS[3], string.rep('\0', tonumber(blockBytes)))
    end
    for d = 1, 31 do
      if math.floor(signWord / 2 ^ (32 - d)) % 2 == 1 then
        redis.call('SETBIT', KEYS[3], tonumber(slot) * 32 + d - 1, 1)
      end
    end
    redis.call('SADD', KEYS[5], block)
  else
    local current = tonumber(redis.call('HGET', KEYS[3], uid)) or 0
    redis.call('HSET', KEYS[3], uid, string.format('%.0f', orWords(current, signWord)))
  end
end
if makeupWord ~= 0 then
  local field = dense and slot or ('m' .. uid)
  local current = tonumber(redis.call('HGET', KEYS[4], field)) or 0
  redis.call('HSET', KEYS[4], field, string.format('%.0f', orWords(current, makeupWord)))
end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
