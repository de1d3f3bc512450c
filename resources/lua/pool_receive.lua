-- pool_receive.lua: step 2 of a borrowed grab, on the user's home pool. Gives the lent envelope
-- to the user unless the user already holds one (two grabs of one user at once). Safe to repeat
-- and safe to run by recovery beside a slow client: the user's draw decides, once, for good.
-- KEYS[1] home meta hash   KEYS[2] home draws hash   KEYS[3] home payout task queue
-- ARGV[1] campaign id   ARGV[2] uid   ARGV[3] "seq:amount"   ARGV[4] time in ms
-- Reply: {'ok', "seq:amount"} (the user holds this envelope) | {'other', "seq:amount"} (the user
--        holds another one: the lent envelope goes back)
local held = redis.call('HGET', KEYS[2], ARGV[2])
if held == ARGV[3] then
  return {'ok', held}
end
if held then
  return {'other', held}
end
local colon = string.find(ARGV[3], ':', 1, true)
local seq = string.sub(ARGV[3], 1, colon - 1)
local amount = string.sub(ARGV[3], colon + 1)
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HINCRBY', KEYS[1], 'borrowed_count', 1)
redis.call('HINCRBY', KEYS[1], 'borrowed_cents', amount)
redis.call('LPUSH', KEYS[3], cjson.encode({
  campaign = ARGV[1], seq = seq, uid = ARGV[2], amount = amount, at = tonumber(ARGV[4])
}))
return {'ok', ARGV[3]}
