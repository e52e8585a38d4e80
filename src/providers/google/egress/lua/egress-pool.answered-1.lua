-- Google answered a route (anything but a block): a probe the job held, of the
-- route or of any of its endpoint families, is over, and that family open.
-- ARGV: job, then the families (each probe's fields are suffixed ':<family>').
local over = 0
for i = 1, #ARGV do
  local sfx = i == 1 and '' or (':' .. ARGV[i])
  local f = redis.call('HMGET', KEYS[1], 'needs_probe' .. sfx, 'probe_job' .. sfx)
  if f[1] == '1' and f[2] == ARGV[1] then
    redis.call('HSET', KEYS[1], 'needs_probe' .. sfx, 0, 'streak' .. sfx, 0)
    redis.call('HDEL', KEYS[1], 'probe_job' .. sfx, 'probe_until' .. sfx)
    over = 1
  end
end
return over
