-- deadletter_replace.lua: edit-before-retry. Takes one exact entry off a dead-letter list and puts
-- the operator's corrected version on its queue (as a new arrival), atomically; the entry's note
-- goes with the last copy of it. An entry that is no longer there is left alone.
-- KEYS[1] the dead-letter list    KEYS[2] its notes hash    KEYS[3] the queue it belongs to
-- ARGV[1] the entry, byte for byte    ARGV[2] the corrected entry
-- Reply: 1 when the entry was replaced, 0 when it was not there
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed > 0 then
  redis.call('LPUSH', KEYS[3], ARGV[2])
  if not redis.call('LPOS', KEYS[1], ARGV[1]) then
    redis.call('HDEL', KEYS[2], ARGV[1])
  end
end
return removed
