-- KEYS: the account's in-flight set, the account's parked set.
-- ARGV: now, lease ms, per-account slots, then the jobs about to be enqueued.
-- Returns 1 for each job given a slot now (enqueued to run), 0 for each parked
-- (enqueued asleep, woken when the account frees a slot): an account's backlog
-- waits asleep in arrival order, and workers take only what may go.
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local slots = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = slots - redis.call('ZCARD', KEYS[1])
if redis.call('ZCARD', KEYS[2]) > 0 then free = 0 end
local answer = {}
for i = 4, #ARGV do
  if free > 0 then
    redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
    free = free - 1
    answer[#answer + 1] = 1
  else
    redis.call('ZADD', KEYS[2], 'NX', now, ARGV[i])
    answer[#answer + 1] = 0
  end
end
redis.call('PEXPIRE', KEYS[1], lease * 2)
redis.call('PEXPIRE', KEYS[2], 86400000)
return answer
