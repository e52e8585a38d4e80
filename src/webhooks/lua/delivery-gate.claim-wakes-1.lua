-- KEYS: the wake-up set.
-- ARGV: now, jobs.
-- Returns the jobs a leave woke while they were not yet asleep (and forgets them): they wake themselves.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local woken = {}
for i = 2, #ARGV do
  if redis.call('ZREM', KEYS[1], ARGV[i]) == 1 then woken[#woken + 1] = ARGV[i] end
end
return woken
