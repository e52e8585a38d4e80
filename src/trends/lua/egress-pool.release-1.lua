-- A job leaves a route without an answer (a network error, a slot too far): its probe, if it held one, goes to the next job.
if redis.call('HGET', KEYS[1], 'probe_job') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'probe_job', 'probe_until')
  return 1
end
return 0
