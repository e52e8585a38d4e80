-- A job leaves a route without an answer (a network error, a slot too far): a probe it held, of the route or of
-- any of its endpoint families, goes to the next job. ARGV: job, then the families.
local left = 0
for i = 1, #ARGV do
  local sfx = i == 1 and '' or (':' .. ARGV[i])
  if redis.call('HGET', KEYS[1], 'probe_job' .. sfx) == ARGV[1] then
    redis.call('HDEL', KEYS[1], 'probe_job' .. sfx, 'probe_until' .. sfx)
    left = 1
  end
end
return left
