-- KEYS: the account's in-flight set, the subscription's circuit.
-- ARGV: now, job, outcome ('ok', 'failing', 'other'), failures to trip, open ms, max open ms.
local now = tonumber(ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[2])
if ARGV[3] == 'ok' then
  redis.call('DEL', KEYS[2])
  return 0
end
if redis.call('HGET', KEYS[2], 'probe_job') == ARGV[2] then redis.call('HDEL', KEYS[2], 'probe_job', 'probe_until') end
if ARGV[3] ~= 'failing' then return 0 end
local failures = redis.call('HINCRBY', KEYS[2], 'failures', 1)
local trip = tonumber(ARGV[4])
local open = 0
if failures >= trip then
  open = math.min(tonumber(ARGV[6]), tonumber(ARGV[5]) * 2 ^ math.min(20, failures - trip))
  redis.call('HSET', KEYS[2], 'open_until', now + open)
end
redis.call('PEXPIRE', KEYS[2], math.max(open * 4, 86400000))
return open
