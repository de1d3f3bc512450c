-- campaign_repair.lua: puts a campaign's state rebuilt from the ledger in place, in one step
-- (issue 15; CampaignRepair stages it first while grabs wait on the repair lock).
-- KEYS[1] meta hash   KEYS[2] pool list   KEYS[3] draws hash   KEYS[4] refused set
-- KEYS[5] repair lock   KEYS[6] staged pool   KEYS[7] staged draws
-- ARGV[1] lock token   ARGV[2] grabbed_count   ARGV[3] grabbed_cents   ARGV[4] status
-- ARGV[5] max_attempts   ARGV[6] total_cents   ARGV[7] count (meta fields a lost campaign gets back)
-- ARGV[8..] "seq:uid" of queued grabs the ledger will refuse: undone here, so the workers'
--           grab_refused.lua finds them done
-- Reply: 'ok' | 'lost_lock' (the lock expired: nothing written but the staged keys' removal)
if redis.call('GET', KEYS[5]) ~= ARGV[1] then
  redis.call('DEL', KEYS[6], KEYS[7])
  return 'lost_lock'
end
redis.call('HSETNX', KEYS[1], 'max_attempts', ARGV[5])
redis.call('HSETNX', KEYS[1], 'total_cents', ARGV[6])
redis.call('HSETNX', KEYS[1], 'count', ARGV[7])
redis.call('HSET', KEYS[1], 'status', ARGV[4], 'loaded_seq', ARGV[7], 'grabbed_count', ARGV[2], 'grabbed_cents', ARGV[3])
redis.call('DEL', KEYS[2])
if ARGV[4] ~= 'closed' and redis.call('EXISTS', KEYS[6]) == 1 then
  redis.call('RENAME', KEYS[6], KEYS[2])
end
redis.call('DEL', KEYS[3], KEYS[6])
if redis.call('EXISTS', KEYS[7]) == 1 then
  redis.call('RENAME', KEYS[7], KEYS[3])
end
for i = 8, #ARGV do
  redis.call('SADD', KEYS[4], ARGV[i])
end
redis.call('DEL', KEYS[5])
return 'ok'
