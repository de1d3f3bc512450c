-- deadletter_take.lua: a bulk retry or discard (Retry all, Discard all) takes the oldest entries of a
-- dead-letter list from its end, O(batch), where deadletter_move.lua would search the list for
-- each entry. The caller read the entries just before the `skip` oldest (the ones it chose to
-- leave) and marks which to take; the script checks they are still there, in that order, takes
-- the marked ones and puts the rest back in place. A list whose end changed meanwhile (another
-- operator took some) is left alone: the reply says so and the caller takes by value instead.
-- A taken entry's note goes unless a copy of it stays among the entries looked at.
-- KEYS[1] the dead-letter list    KEYS[2] its notes hash    KEYS[3] the queue it belongs to (absent: discard)
-- ARGV[1] skip: entries at the oldest end to leave as they are
-- ARGV[2] one character per entry below: '1' take it, '0' leave it in place
-- ARGV[3..] the entries before the skipped ones, oldest first, byte for byte
-- Reply: nil when the list's end is not as read (nothing moved), else the number taken
local skip = tonumber(ARGV[1])
local flags = ARGV[2]
local n = #ARGV - 2
if n < 1 then
  return 0
end
local seen = redis.call('LRANGE', KEYS[1], -(skip + n), -(skip + 1))
if #seen ~= n then
  return false
end
for j = 1, n do
  -- seen is newest first: entry j (oldest first) is seen[n + 1 - j]
  if seen[n + 1 - j] ~= ARGV[2 + j] then
    return false
  end
end

-- tail[1] is the oldest entry, tail[skip + j] entry j.
local tail = redis.call('RPOP', KEYS[1], skip + n)
local kept, keep = {}, {}
for i = skip + n, 1, -1 do
  if i <= skip or string.sub(flags, i - skip, i - skip) ~= '1' then
    keep[#keep + 1] = tail[i]
    kept[tail[i]] = true
  end
end
-- Back at the end in their order, newest first (a bounded unpack each).
for first = 1, #keep, 100 do
  redis.call('RPUSH', KEYS[1], unpack(keep, first, math.min(first + 99, #keep)))
end
local taken = 0
for j = 1, n do
  if string.sub(flags, j, j) == '1' then
    local entry = ARGV[2 + j]
    if KEYS[3] then
      redis.call('LPUSH', KEYS[3], entry)
    end
    if not kept[entry] then
      redis.call('HDEL', KEYS[2], entry)
    end
    taken = taken + 1
  end
end
return taken
