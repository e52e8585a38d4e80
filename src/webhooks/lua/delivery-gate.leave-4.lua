-- KEYS: the account's in-flight set, the subscription's circuit, the account's parked set, the wake-up set.
-- ARGV: now, job, outcome ('ok', 'failing', 'other'), failures to trip, open ms, max open ms, wake lease ms.
-- Returns {ms the circuit is now open (0: closed), the parked job woken or ''}.
-- The slot freed goes to the account's first parked job at once (held for it
-- `wake lease` ms), so the account's backlog moves as fast as its slots free,
-- with no job asking again on a timer. The wake-up is recorded too: a job
-- parked but not yet asleep finds it when it lies down (claimWakes).
local now = tonumber(ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local woken = ''
local first = redis.call('ZPOPMIN', KEYS[3])
if first[1] then
  woken = first[1]
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[7]), woken)
  redis.call('ZADD', KEYS[4], now + 60000, woken)
  redis.call('PEXPIRE', KEYS[4], 120000)
end
if ARGV[3] == 'ok' then
  redis.call('DEL', KEYS[2])
  return {0, woken}
end
if redis.call('HGET', KEYS[2], 'probe_job') == ARGV[2] then redis.call('HDEL', KEYS[2], 'probe_job', 'probe_until') end
if ARGV[3] ~= 'failing' then return {0, woken} end
local failures = redis.call('HINCRBY', KEYS[2], 'failures', 1)
local trip = tonumber(ARGV[4])
local open = 0
if failures >= trip then
  open = math.min(tonumber(ARGV[6]), tonumber(ARGV[5]) * 2 ^ math.min(20, failures - trip))
  redis.call('HSET', KEYS[2], 'open_until', now + open)
end
redis.call('PEXPIRE', KEYS[2], math.max(open * 4, 86400000))
return {open, woken}
