-- pool_settle.lua: step 3 of a borrowed grab, on the donor pool: the lent entry is removed, and
-- an envelope its user did not take ('returned') goes back to the pool, or, once the campaign is
-- closed, to the refund. Only the call that removes the entry acts, so a client and recovery
-- settling the same envelope never return it twice.
-- KEYS[1] donor meta hash   KEYS[2] donor pool list   KEYS[3] donor lent hash
-- ARGV[1] "seq:amount"   ARGV[2] 'kept' | 'returned'
-- Reply: 'settled' (someone already did) | 'kept' | 'returned' | 'refund'
if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then
  return 'settled'
end
if ARGV[2] == 'kept' then
  return 'kept'
end
local colon = string.find(ARGV[1], ':', 1, true)
redis.call('HINCRBY', KEYS[1], 'grabbed_count', -1)
redis.call('HINCRBY', KEYS[1], 'grabbed_cents', -tonumber(string.sub(ARGV[1], colon + 1)))
if redis.call('HGET', KEYS[1], 'status') == 'closed' then
  return 'refund'
end
redis.call('LPUSH', KEYS[2], ARGV[1])
return 'returned'
