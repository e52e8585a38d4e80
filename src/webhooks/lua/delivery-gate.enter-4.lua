-- KEYS: the account's in-flight set, the subscription's circuit, the account's parked set, the parked jobs' subscriptions (a hash).
-- ARGV: now, job, lease ms, per-account slots, failures to trip, subscription.
-- Returns {1, 0, ''} to go, or {0, wait ms, why}. A job the account's slots
-- refuse is parked (kept in arrival order, with its subscription): the next
-- slot the account frees goes to the first parked job
-- (delivery-gate.leave-5.lua), which is woken or carried.
local now = tonumber(ARGV[1])
local job = ARGV[2]
local lease = tonumber(ARGV[3])
local c = redis.call('HMGET', KEYS[2], 'open_until', 'failures', 'probe_job', 'probe_until')
local openUntil = tonumber(c[1] or '0')
if openUntil > now then return {0, openUntil - now, 'circuit'} end
local halfOpen = tonumber(c[2] or '0') >= tonumber(ARGV[5])
if halfOpen and c[3] and c[3] ~= job and tonumber(c[4] or '0') > now then return {0, tonumber(c[4]) - now, 'probe'} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], job) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[3], 'NX', now, job)
  redis.call('HSET', KEYS[4], job, ARGV[6])
  redis.call('PEXPIRE', KEYS[3], 86400000)
  redis.call('PEXPIRE', KEYS[4], 86400000)
  return {0, 0, 'account'}
end
redis.call('ZREM', KEYS[3], job)
redis.call('HDEL', KEYS[4], job)
redis.call('ZADD', KEYS[1], now + lease, job)
redis.call('PEXPIRE', KEYS[1], lease * 2)
if halfOpen then redis.call('HSET', KEYS[2], 'probe_job', job, 'probe_until', now + lease) end
return {1, 0, ''}
