-- Grants a route to a job: the first (from a rotating offset, so load spreads)
-- that is neither refused, cooling nor waiting on another job's probe, and whose
-- next slot is near. After a cooldown the route needs a probe: the first job
-- gets it (a lease, renewed as it sends), the others wait for its answer.
-- A job for embed pages also needs the route's embed pages open and their next slot near.
-- A route Google answered with its EU consent page is set aside (consent_until) like a refused one.
-- Blocks are per endpoint family: the route must have open the family of the job's first request
-- (fields suffixed ':<family>'), besides the route itself; a probe after a family's block is that family's.
-- ARGV: now, job, lease ms, lookahead ms, offset, skip flags ("0101"), poll ms, embed ("1" or "0"), family ('' unknown).
local now = tonumber(ARGV[1])
local job = ARGV[2]
local lease = tonumber(ARGV[3])
local lookahead = tonumber(ARGV[4])
local offset = tonumber(ARGV[5])
local skip = ARGV[6]
local poll = tonumber(ARGV[7])
local embed = ARGV[8] == '1'
local family = ARGV[9] or ''
local sfx = family ~= '' and (':' .. family) or ''
local n = #KEYS
local best = -1
local reason = ''
for j = 0, n - 1 do
  local i = ((offset + j) % n) + 1
  if string.sub(skip, i, i) ~= '1' then
    local k = KEYS[i]
    local f = redis.call('HMGET', k, 'refused_until', 'cool_until', 'needs_probe', 'probe_job', 'probe_until', 'next_at', 'embed_cool_until', 'embed_next_at', 'consent_until')
    local ff = redis.call('HMGET', k, 'cool_until' .. sfx, 'needs_probe' .. sfx, 'probe_job' .. sfx, 'probe_until' .. sfx)
    local probeSfx = ''
    if sfx ~= '' and f[3] ~= '1' and ff[2] == '1' then
      -- No probe of the whole route pending: the family's, if any, is the one to hold.
      f[3] = ff[2]
      f[4] = ff[3]
      f[5] = ff[4]
      probeSfx = sfx
    end
    local refused = tonumber(f[1] or '0')
    local consent = tonumber(f[9] or '0')
    local cool = math.max(tonumber(f[2] or '0'), tonumber(ff[1] or '0'))
    local pjob = f[4]
    local puntil = tonumber(f[5] or '0')
    local nextAt = tonumber(f[6] or '0')
    local embedCool = tonumber(f[7] or '0')
    if embed then nextAt = math.max(nextAt, tonumber(f[8] or '0')) end
    local wait = -1
    local why = ''
    if consent > now then
      wait = consent - now
      why = 'consent'
    elseif refused > now then
      wait = refused - now
      why = 'refused'
    elseif cool > now then
      wait = cool - now
      why = 'cooling'
    elseif embed and embedCool > now then
      wait = embedCool - now
      why = 'embed_quota'
    elseif f[3] == '1' then
      if pjob and pjob ~= job and puntil > now then
        wait = math.min(poll, puntil - now)
        why = 'probe'
      else
        if pjob ~= job then redis.call('HINCRBY', k, 'probes', 1) end
        redis.call('HSET', k, 'probe_job' .. probeSfx, job, 'probe_until' .. probeSfx, now + lease)
        return {i, 1, 0, ''}
      end
    elseif nextAt - now > lookahead then
      wait = nextAt - now - lookahead
      why = 'busy'
    else
      return {i, 0, 0, ''}
    end
    if best < 0 or wait < best then
      best = wait
      reason = why
    end
  end
end
return {0, 0, best, reason}
