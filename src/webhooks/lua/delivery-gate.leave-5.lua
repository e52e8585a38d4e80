-- KEYS: the account's in-flight set, the subscription's circuit, the account's parked set, the wake-up set,
--       the parked jobs' subscriptions (a hash).
-- ARGV: now, job, outcome ('ok', 'failing', 'other'), failures to trip, open ms, max open ms, wake lease ms,
--       carry ('1': the caller sends the next job's delivery itself), lease ms, the circuits' key prefix.
-- Returns {ms the circuit is now open (0: closed), the parked job woken or '', 1 if that job has entered}.
-- The slot freed goes to the account's first parked job at once (held for it
-- `wake lease` ms), so the account's backlog moves as fast as its slots free,
-- with no job asking again on a timer. The wake-up is recorded too: a job
-- parked but not yet asleep finds it when it lies down (claimWakes).
-- With carry, the next job also enters here, as delivery-gate.enter-4.lua
-- would let it (its subscription's circuit closed, or its probe free): one
-- round trip per carried delivery instead of two (issue 48). Its circuit's
-- key is made here from the prefix and its subscription kept at parking; it
-- is in the same hash tag as every key above (one Redis Cluster shard).
local now = tonumber(ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[2])
-- How the receiver answered, first: the next job may be of the same subscription.
local open = 0
if ARGV[3] == 'ok' then
  redis.call('DEL', KEYS[2])
else
  if redis.call('HGET', KEYS[2], 'probe_job') == ARGV[2] then redis.call('HDEL', KEYS[2], 'probe_job', 'probe_until') end
  if ARGV[3] == 'failing' then
    local failures = redis.call('HINCRBY', KEYS[2], 'failures', 1)
    local trip = tonumber(ARGV[4])
    if failures >= trip then
      open = math.min(tonumber(ARGV[6]), tonumber(ARGV[5]) * 2 ^ math.min(20, failures - trip))
      redis.call('HSET', KEYS[2], 'open_until', now + open)
    end
    redis.call('PEXPIRE', KEYS[2], math.max(open * 4, 86400000))
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local woken = ''
local entered = 0
local first = redis.call('ZPOPMIN', KEYS[3])
if first[1] then
  woken = first[1]
  local sub = redis.call('HGET', KEYS[5], woken)
  redis.call('HDEL', KEYS[5], woken)
  local lease = tonumber(ARGV[7])
  if ARGV[8] == '1' and sub then
    local circuit = ARGV[10] .. sub
    local c = redis.call('HMGET', circuit, 'open_until', 'failures', 'probe_job', 'probe_until')
    local halfOpen = tonumber(c[2] or '0') >= tonumber(ARGV[4])
    local probing = halfOpen and c[3] and c[3] ~= woken and tonumber(c[4] or '0') > now
    if tonumber(c[1] or '0') <= now and not probing then
      entered = 1
      lease = tonumber(ARGV[9])
      if halfOpen then redis.call('HSET', circuit, 'probe_job', woken, 'probe_until', now + lease) end
    end
  end
  redis.call('ZADD', KEYS[1], now + lease, woken)
  if entered == 1 then redis.call('PEXPIRE', KEYS[1], lease * 2) end
  redis.call('ZADD', KEYS[4], now + 60000, woken)
  redis.call('PEXPIRE', KEYS[4], 120000)
end
return {open, woken, entered}
