-- KEYS: the account's in-flight set, the account's parked set, the parked jobs' subscriptions (a hash).
-- ARGV: now, lease ms, per-account slots, then for each job about to be enqueued: the job, its subscription ('' unknown).
-- Returns 1 for each job given a slot now (enqueued to run), 0 for each parked
-- (enqueued asleep, woken when the account frees a slot): an account's backlog
-- waits asleep in arrival order, and workers take only what may go. A parked
-- job's subscription is kept so the slot can be handed to it with its circuit
-- already asked (delivery-gate.leave-5.lua).
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local slots = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = slots - redis.call('ZCARD', KEYS[1])
if redis.call('ZCARD', KEYS[2]) > 0 then free = 0 end
local answer = {}
for i = 4, #ARGV, 2 do
  if free > 0 then
    redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
    free = free - 1
    answer[#answer + 1] = 1
  else
    redis.call('ZADD', KEYS[2], 'NX', now, ARGV[i])
    if ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
    answer[#answer + 1] = 0
  end
end
redis.call('PEXPIRE', KEYS[1], lease * 2)
redis.call('PEXPIRE', KEYS[2], 86400000)
redis.call('PEXPIRE', KEYS[3], 86400000)
return answer
