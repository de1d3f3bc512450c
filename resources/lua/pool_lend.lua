-- pool_lend.lua: step 1 of a grab whose home pool is dry (docs/cluster.md "Sub-pools"). Takes the
-- next envelope of this (donor) pool and records it as lent to a user of another pool, so that
-- a process killed before step 2 loses nothing: recovery finds the entry and finishes or undoes it.
-- KEYS[1] donor meta hash   KEYS[2] donor pool list   KEYS[3] donor lent hash   KEYS[4] donor repair lock
-- ARGV[1] home pool name   ARGV[2] uid   ARGV[3] time in ms
-- Reply: {'lent', "seq:amount"} | {'dry'} | {'not_live'} | {'repairing'}
if redis.call('EXISTS', KEYS[4]) == 1 then
  return {'repairing'}
end
if redis.call('HGET', KEYS[1], 'status') ~= 'live' then
  return {'not_live'}
end
local envelope = redis.call('LPOP', KEYS[2])
if not envelope then
  return {'dry'}
end
local colon = string.find(envelope, ':', 1, true)
-- The envelope left this pool: it counts as grabbed here, wherever its user lives.
redis.call('HINCRBY', KEYS[1], 'grabbed_count', 1)
redis.call('HINCRBY', KEYS[1], 'grabbed_cents', string.sub(envelope, colon + 1))
redis.call('HSET', KEYS[3], envelope, ARGV[1] .. '|' .. ARGV[2] .. '|' .. ARGV[3])
return {'lent', envelope}
