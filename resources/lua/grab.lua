-- grab.lua: one user grabs one envelope of a live campaign, atomically (DESIGN §4).
-- KEYS[1] campaign meta hash (status, max_attempts, grabbed_count, grabbed_cents)
-- KEYS[2] pool list of "seq:amount" (LPOP takes the next envelope)
-- KEYS[3] draws hash uid -> "seq:amount"     KEYS[4] attempts hash uid -> count
-- KEYS[5] payout task queue (LPUSH in, the oldest on the right)
-- KEYS[6] repair lock: while a repair rebuilds the campaign from SQL, grabs wait
-- ARGV[1] campaign id   ARGV[2] uid   ARGV[3] time in ms
-- ARGV[4] how many pools the caller believes the campaign has (absent: 1); the keys are those of
--         the user's home pool (campaign create --pools K, docs/cluster.md "Sub-pools")
-- Reply: {status} or {status, "seq:amount"}
--   status: 'ok' | 'already' (the user's envelope) | 'not_live' | 'too_many_attempts' | 'sold_out'
--           | 'repairing' (try again in a moment)
--           | 'stale' (the campaign has another number of pools: read them again)
--           | 'dry' (this pool is empty but others may not be: the attempt is counted, borrow one)
if redis.call('EXISTS', KEYS[6]) == 1 then
  return {'repairing'}
end
-- One read of the meta: status, how many pools it belongs to, the attempts cap.
local meta = redis.call('HMGET', KEYS[1], 'status', 'pools_count', 'max_attempts')
local pools = tonumber(ARGV[4] or '1')
if tonumber(meta[2] or '1') ~= pools then
  return {'stale'}
end
if meta[1] ~= 'live' then
  return {'not_live'}
end
local held = redis.call('HGET', KEYS[3], ARGV[2])
if held then
  return {'already', held}
end
local attempts = redis.call('HINCRBY', KEYS[4], ARGV[2], 1)
if attempts > tonumber(meta[3]) then
  return {'too_many_attempts'}
end
local envelope = redis.call('LPOP', KEYS[2])
if not envelope then
  if pools > 1 then
    return {'dry'}
  end
  return {'sold_out'}
end
local colon = string.find(envelope, ':', 1, true)
local seq = string.sub(envelope, 1, colon - 1)
local amount = string.sub(envelope, colon + 1)
redis.call('HSET', KEYS[3], ARGV[2], envelope)
redis.call('HINCRBY', KEYS[1], 'grabbed_count', 1)
redis.call('HINCRBY', KEYS[1], 'grabbed_cents', amount)
redis.call('LPUSH', KEYS[5], cjson.encode({
  campaign = ARGV[1], seq = seq, uid = ARGV[2], amount = amount, at = tonumber(ARGV[3])
}))
return {'ok', envelope}
