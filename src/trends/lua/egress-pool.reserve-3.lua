-- The next request slot of a route for a job that holds it: refused when the
-- route is set aside (EU consent), cooling, refused, or being probed by another job; `busy` when the
-- slot is further than the job may wait inside its request. A probe's lease is
-- renewed with each request. An embed page (embed gap > 0) also takes the
-- route's next embed slot, and is refused while the embed pages cool down.
-- KEYS: route, sent log, today's budget.
-- ARGV: now, job, interval ms (jittered by the caller), max wait ms, lease ms, member, route name, embed gap ms, embed page ('1' or '0').
local now = tonumber(ARGV[1])
local job = ARGV[2]
local embedGap = tonumber(ARGV[8])
local embed = ARGV[9] == '1'
local f = redis.call('HMGET', KEYS[1], 'refused_until', 'cool_until', 'needs_probe', 'probe_job', 'next_at', 'embed_cool_until', 'embed_next_at', 'consent_until')
local refused = tonumber(f[1] or '0')
if tonumber(f[8] or '0') > now then return {-1, tonumber(f[8]) - now, 'consent'} end
local cool = tonumber(f[2] or '0')
if refused > now then return {-1, refused - now, 'refused'} end
if cool > now then return {-1, cool - now, 'cooling'} end
local embedCool = tonumber(f[6] or '0')
if embed and embedCool > now then return {-1, embedCool - now, 'embed_quota'} end
if f[3] == '1' then
  if f[4] ~= job then return {-1, 1000, 'probe'} end
  redis.call('HSET', KEYS[1], 'probe_until', now + tonumber(ARGV[5]))
end
local slot = math.max(now, tonumber(f[5] or '0'))
if embed then slot = math.max(slot, tonumber(f[7] or '0')) end
if slot - now > tonumber(ARGV[4]) then return {-1, slot - now, 'busy'} end
redis.call('HSET', KEYS[1], 'next_at', slot + tonumber(ARGV[3]))
if embed then
  redis.call('HSET', KEYS[1], 'embed_next_at', slot + embedGap)
  redis.call('HINCRBY', KEYS[3], ARGV[7] .. '|embed_requests', 1)
end
redis.call('ZADD', KEYS[2], slot, ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 3600000)
redis.call('PEXPIRE', KEYS[2], 7200000)
redis.call('HINCRBY', KEYS[3], ARGV[7] .. '|requests', 1)
redis.call('EXPIRE', KEYS[3], 691200)
return {slot, 0, ''}
