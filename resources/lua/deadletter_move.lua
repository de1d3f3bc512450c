-- deadletter_move.lua: takes exact entries off a dead-letter list and, for a retry, puts each one
-- back on its queue (as a new arrival, LPUSH), atomically. An entry that is no longer there (another
-- operator, a concurrent retry) is skipped, so nothing is ever moved twice. An entry's note (why it
-- was set aside) goes with the last copy of it on the list.
-- KEYS[1] the dead-letter list    KEYS[2] its notes hash    KEYS[3] the queue it belongs to (absent: discard)
-- ARGV    the entries, byte for byte
-- Reply: one integer per entry, 1 when it was taken off the list, 0 when it was not there
local taken = {}
for i, entry in ipairs(ARGV) do
  local removed = redis.call('LREM', KEYS[1], 1, entry)
  if removed > 0 then
    if KEYS[3] then
      redis.call('LPUSH', KEYS[3], entry)
    end
    if not redis.call('LPOS', KEYS[1], entry) then
      redis.call('HDEL', KEYS[2], entry)
    end
  end
  taken[i] = removed
end
return taken
