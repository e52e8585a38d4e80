-- Google answered a route (anything but a block): a probe that was waited for is over, and the route is open.
local f = redis.call('HMGET', KEYS[1], 'needs_probe', 'probe_job')
if f[1] == '1' and f[2] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'needs_probe', 0, 'streak', 0)
  redis.call('HDEL', KEYS[1], 'probe_job', 'probe_until')
  return 1
end
return 0
