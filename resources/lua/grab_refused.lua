-- grab_refused.lua: undoes in Redis a grab the ledger refused (issue 15). Redis handed the
-- envelope to a user while SQL already held another grab of that user ('user_holds') or of that
-- envelope ('taken'): only a Redis that forgot state (a rollback, a lagging replica) does that.
-- KEYS[1] campaign meta hash   KEYS[2] pool list   KEYS[3] draws hash   KEYS[4] refused set
-- ARGV[1] seq   ARGV[2] amount   ARGV[3] uid
-- ARGV[4] "seq:amount" the user holds in SQL, or ''   ARGV[5] uid holding the envelope in SQL, or ''
-- Reply: 'seen' (already undone: a replayed task) | 'taken' | 'returned' (to the pool) | 'refund' (closed)
if redis.call('SADD', KEYS[4], ARGV[1] .. ':' .. ARGV[3]) == 0 then
  return 'seen'
end
local envelope = ARGV[1] .. ':' .. ARGV[2]
-- The user's answer to a repeated grab becomes what the ledger holds for them.
if redis.call('HGET', KEYS[3], ARGV[3]) == envelope then
  if ARGV[4] ~= '' then
    redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
  else
    redis.call('HDEL', KEYS[3], ARGV[3])
  end
end
if ARGV[5] ~= '' then
  -- The envelope is another user's: it stays out of the pool, counted once, as theirs.
  redis.call('HSET', KEYS[3], ARGV[5], envelope)
  return 'taken'
end
-- Nobody holds the envelope: it was never grabbed.
redis.call('HINCRBY', KEYS[1], 'grabbed_count', -1)
redis.call('HINCRBY', KEYS[1], 'grabbed_cents', -tonumber(ARGV[2]))
if redis.call('HGET', KEYS[1], 'status') == 'closed' then
  return 'refund'
end
redis.call('LPUSH', KEYS[2], envelope)
return 'returned'
