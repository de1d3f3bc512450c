-- acknowledge.lua: removes processed entries from a worker's backup list (reliable queue), one
-- occurrence per argument, the occurrence nearest the list's oldest end (as LREM key -1 entry).
-- Entries are mostly acknowledged in the order they were claimed, so they are the list's oldest:
-- those are cut off with one LTRIM instead of a command each; the rest are removed with LREM.
-- KEYS[1] the backup list (claims push on the left: the oldest entries are on the right)
-- ARGV    the entries
-- Reply: number of entries removed
if #ARGV == 0 then
  return 0
end
local wanted = {}
for i = 1, #ARGV do
  wanted[ARGV[i]] = (wanted[ARGV[i]] or 0) + 1
end
local tail = redis.call('LRANGE', KEYS[1], -#ARGV, -1)
local cut = 0
for i = #tail, 1, -1 do
  local left = wanted[tail[i]]
  if not left or left == 0 then
    break
  end
  wanted[tail[i]] = left - 1
  cut = cut + 1
end
if cut > 0 then
  redis.call('LTRIM', KEYS[1], 0, -cut - 1)
end
local removed = cut
for entry, left in pairs(wanted) do
  for _ = 1, left do
    removed = removed + redis.call('LREM', KEYS[1], -1, entry)
  end
end
return removed
