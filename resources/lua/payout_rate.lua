-- payout_rate.lua: the token bucket that every worker paying through one provider shares
-- (LANTERN_PAYOUT_RATE): one token per call to the provider, refilled at the rate, at most
-- `capacity` kept after a quiet spell. The clock is the server's (TIME), so workers on hosts
-- whose clocks differ still share one bucket; a test may pass its own.
-- KEYS[1] the bucket (hash: tokens, at_ms)
-- ARGV[1] tokens per second   ARGV[2] capacity   ARGV[3] tokens wanted
-- ARGV[4] now in ms, or '' for the server's clock
-- Reply: {granted, wait_ms}: tokens taken now (0..wanted) and, when fewer than wanted, the ms
-- until the next whole token (0 otherwise)
if redis.replicate_commands then
  redis.replicate_commands()  -- Redis < 5: TIME before a write needs effects replication
end
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local now
if ARGV[4] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = tonumber(ARGV[4])
end
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at_ms')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
if now > at then
  tokens = math.min(capacity, tokens + (now - at) * rate / 1000)
  at = now
end
local granted = math.max(0, math.min(wanted, math.floor(tokens)))
tokens = tokens - granted
local wait = 0
if granted < wanted then
  wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at_ms', tostring(at))
-- A bucket left alone refills to capacity; once it would be full it can go and start full again.
redis.call('PEXPIRE', KEYS[1], math.max(1000, math.ceil(capacity * 1000 / rate) * 2))
return {granted, wait}
