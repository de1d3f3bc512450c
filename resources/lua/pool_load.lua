-- pool_load.lua: appends one chunk of pre-split envelopes to a campaign's pool, exactly once.
-- Launch calls it chunk by chunk; meta.loaded_seq records how far it got, so a launch resumed
-- after a crash continues where it stopped and never pushes an envelope twice.
-- KEYS[1] campaign meta hash   KEYS[2] pool list
-- ARGV[1] seq of the chunk's first envelope   ARGV[2..] "seq:amount" entries in seq order
-- Reply: the loaded_seq after the call (unchanged when the chunk was already loaded)
local loaded = tonumber(redis.call('HGET', KEYS[1], 'loaded_seq') or '0')
local first = tonumber(ARGV[1])
if first ~= loaded + 1 then
  return loaded
end
for i = 2, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
loaded = loaded + #ARGV - 1
redis.call('HSET', KEYS[1], 'loaded_seq', loaded)
return loaded
