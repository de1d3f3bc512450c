-- campaign_status.lua: moves a campaign between statuses in Redis, only along allowed edges.
-- KEYS[1] campaign meta hash    KEYS[2] pool list (emptied on close)
-- KEYS[3] repair lock: no move while a repair rebuilds the campaign from SQL
-- ARGV[1] target status: live | paused | closed
-- ARGV[2] envelope count (going live requires the whole pool loaded)
-- ARGV[3..] meta fields to initialise when missing, as name, value pairs
-- Reply: {'ok', status} | {'unchanged', status} | {'refused', status} | {'repairing', status}
local current = redis.call('HGET', KEYS[1], 'status') or 'draft'
if redis.call('EXISTS', KEYS[3]) == 1 then
  return {'repairing', current}
end
local target = ARGV[1]
if current == target then
  return {'unchanged', current}
end
local allowed = {
  draft = {live = true, closed = true},
  live = {paused = true, closed = true},
  paused = {live = true, closed = true},
}
if not (allowed[current] and allowed[current][target]) then
  return {'refused', current}
end
if target == 'live' and tonumber(redis.call('HGET', KEYS[1], 'loaded_seq') or '0') ~= tonumber(ARGV[2]) then
  return {'refused', current}
end
-- Only an accepted move writes anything.
for i = 3, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'status', target)
if target == 'closed' then
  redis.call('UNLINK', KEYS[2])
end
return {'ok', target}
