-- deadletter_move.lua: takes exact entries off a dead-letter list and, for a retry, puts each one
-- back on its queue (as a new arrival, LPUSH), atomically. An entry that is no longer there (another
-- operator, a concurrent retry) is skipped, so nothing is ever moved twice.
-- KEYS[1] the dead-letter list    KEYS[2] the queue it belongs to (absent: discard)
-- ARGV    the entries, byte for byte
-- Reply: one integer per entry, 1 when it was taken off the list, 0 when it was not there
local taken = {}
for i, entry in ipairs(ARGV) do
  local removed = redis.call('LREM', KEYS[1], 1, entry)
  if removed > 0 and KEYS[2] then
    redis.call('LPUSH', KEYS[2], entry)
  end
  taken[i] = removed
end
return taken
