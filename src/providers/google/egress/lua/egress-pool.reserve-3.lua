-- The next request slot of a route for a job that holds it: refused when the
-- route is set aside (EU consent), cooling, refused, or being probed by another job; `busy` when the
-- slot is further than the job may wait inside its request. A probe's lease is
-- renewed with each request; a probe no job holds (or whose lease ran out) is
-- taken by the job that asks, as egress-pool.acquire-n.lua does, so a job whose
-- next request is of a family that needs a probe asks it instead of waiting for
-- a holder that will never come. An embed page (embed gap > 0) also takes the
-- route's next embed slot, and is refused while the embed pages cool down.
-- Blocks are per endpoint family: a request of a family checks the route's
-- cooldown and probe (set by a block of unknown family) and its family's
-- (fields suffixed ':<family>'), not the other families'.
-- The explore family also takes a token from the route's bucket (Google's
-- limit on it is a token bucket: gtrends, 2026-09-09): `bucket_tokens` as of
-- `bucket_at`, refilled at `bucket_refill` a minute (learned, see
-- egress-pool.bucket-empty-1.lua); an empty bucket moves the slot to when the
-- next token comes. Each time the bucket runs dry with `burst` explore requests
-- served since Google last said it was empty, the refill is raised by a tenth
-- (up to the most measured): a refill learned too low is found again.
-- KEYS: route, sent log, today's budget.
-- ARGV: now, job, interval ms (jittered by the caller), max wait ms, lease ms, member, route name, embed gap ms, embed page ('1' or '0'),
--       family ('' unknown), burst, first refill a minute, most refill a minute.
local now = tonumber(ARGV[1])
local job = ARGV[2]
local embedGap = tonumber(ARGV[8])
local embed = ARGV[9] == '1'
local family = ARGV[10] or ''
local sfx = family ~= '' and (':' .. family) or ''
local f = redis.call('HMGET', KEYS[1], 'refused_until', 'cool_until', 'needs_probe', 'probe_job', 'next_at', 'embed_cool_until', 'embed_next_at', 'consent_until', 'probe_until')
local ff = redis.call('HMGET', KEYS[1], 'cool_until' .. sfx, 'needs_probe' .. sfx, 'probe_job' .. sfx, 'probe_until' .. sfx)
local refused = tonumber(f[1] or '0')
if tonumber(f[8] or '0') > now then return {-1, tonumber(f[8]) - now, 'consent'} end
local cool = math.max(tonumber(f[2] or '0'), tonumber(ff[1] or '0'))
if refused > now then return {-1, refused - now, 'refused'} end
if cool > now then return {-1, cool - now, 'cooling'} end
local embedCool = tonumber(f[6] or '0')
if embed and embedCool > now then return {-1, embedCool - now, 'embed_quota'} end
-- Whether another job's lease on a probe (of the route, suffix '', or of the family) still runs.
local function heldElsewhere(holder, leaseUntil)
  return holder and holder ~= job and tonumber(leaseUntil or '0') > now
end
-- Takes a probe no other job holds (its lease is set again from the slot below).
local function holdProbe(probeSfx, holder)
  if holder ~= job then redis.call('HINCRBY', KEYS[1], 'probes', 1) end
  redis.call('HSET', KEYS[1], 'probe_job' .. probeSfx, job, 'probe_until' .. probeSfx, now + tonumber(ARGV[5]))
end
-- Both probes are checked before either is taken, so a job that must wait takes (and counts) none.
if f[3] == '1' and heldElsewhere(f[4], f[9]) then return {-1, 1000, 'probe'} end
if sfx ~= '' and ff[2] == '1' and heldElsewhere(ff[3], ff[4]) then return {-1, 1000, 'probe'} end
local probes = {}
if f[3] == '1' then
  holdProbe('', f[4])
  probes[#probes + 1] = ''
end
if sfx ~= '' and ff[2] == '1' then
  holdProbe(sfx, ff[3])
  probes[#probes + 1] = sfx
end
local slot = math.max(now, tonumber(f[5] or '0'))
if embed then slot = math.max(slot, tonumber(f[7] or '0')) end
local bucketed = family == 'explore' and tonumber(ARGV[11] or '0') > 0
local tokens, refill
if bucketed then
  local burst = tonumber(ARGV[11])
  local b = redis.call('HMGET', KEYS[1], 'bucket_tokens', 'bucket_at', 'bucket_refill', 'bucket_taken', 'bucket_taken_at_empty', 'bucket_raised_at')
  refill = tonumber(b[3] or ARGV[12])
  local at = tonumber(b[2] or tostring(slot))
  tokens = tonumber(b[1] or tostring(burst))
  -- A token reserved ahead (at > slot): the next comes after it.
  local t = math.max(slot, at)
  tokens = math.min(burst, tokens + (t - at) * refill / 60000)
  if tokens < 1 then
    local taken = tonumber(b[4] or '0')
    local since = taken - tonumber(b[5] or '0')
    if since >= burst and taken - tonumber(b[6] or '0') >= burst and refill < tonumber(ARGV[13]) then
      refill = math.min(tonumber(ARGV[13]), refill * 1.1)
      redis.call('HSET', KEYS[1], 'bucket_refill', refill, 'bucket_raised_at', taken)
    end
    t = t + math.ceil((1 - tokens) * 60000 / refill)
    tokens = 1
  end
  slot = t
end
if slot - now > tonumber(ARGV[4]) then return {-1, slot - now, 'busy'} end
-- A probe's lease runs from the request's slot, not from now: a job that has begun may wait for its slot longer than a lease.
for _, p in ipairs(probes) do redis.call('HSET', KEYS[1], 'probe_until' .. p, slot + tonumber(ARGV[5])) end
redis.call('HSET', KEYS[1], 'next_at', slot + tonumber(ARGV[3]))
if bucketed then
  redis.call('HSET', KEYS[1], 'bucket_tokens', tokens - 1, 'bucket_at', slot, 'bucket_refill', refill)
  redis.call('HINCRBY', KEYS[1], 'bucket_taken', 1)
end
if embed then
  redis.call('HSET', KEYS[1], 'embed_next_at', slot + embedGap)
  redis.call('HINCRBY', KEYS[3], ARGV[7] .. '|embed_requests', 1)
end
redis.call('ZADD', KEYS[2], slot, ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 3600000)
redis.call('PEXPIRE', KEYS[2], 7200000)
redis.call('HINCRBY', KEYS[3], ARGV[7] .. '|requests', 1)
if family ~= '' then redis.call('HINCRBY', KEYS[3], ARGV[7] .. '|requests_' .. family, 1) end
redis.call('EXPIRE', KEYS[3], 691200)
return {slot, 0, ''}
