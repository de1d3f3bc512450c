-- requeue.lua: returns a backup list's entries to the front of their queue, oldest first in line.
-- Used by crash recovery for a worker whose heartbeat expired.
-- KEYS[1] the backup list    KEYS[2] the queue
-- ARGV[1] maximum number of entries to move
-- Reply: number of entries moved
local moved = 0
for i = 1, tonumber(ARGV[1]) do
  if not redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') then
    break
  end
  moved = i
end
return moved
