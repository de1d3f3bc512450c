-- claim.lua: moves up to N entries from a queue into a worker's backup list (reliable queue).
-- The entries stay in the backup list until the worker acknowledges them, so a crash loses none.
-- KEYS[1] queue (producers LPUSH, the oldest entry is on the right)
-- KEYS[2] the worker's backup list
-- ARGV[1] maximum number of entries to move
-- Reply: the moved entries, oldest first
local moved = {}
for i = 1, tonumber(ARGV[1]) do
  local entry = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
  if not entry then
    break
  end
  moved[i] = entry
end
return moved
