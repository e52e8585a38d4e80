-- Google blocked a route's endpoint family (or the route, family unknown). A
-- new cooldown of that family, twice as long as its last in a row, unless one
-- is already running or another job holds its probe (a request that was in
-- flight when the block began must not lengthen it). Blocks are per family
-- (gtrends, 2026-09-09): the route's other families go on; the family's fields
-- are suffixed ':<family>'.
-- Google's Retry-After, when it sent one, is a floor: no request before it,
-- and a running cooldown is made that long if it was shorter.
-- Whether Google's blocks are per family is learned, not assumed: the Google
-- peers measured in August 2026 blocked the whole address, the one of
-- September 2026 a family. A block met by one family while another family's
-- cooldown runs on the same route means blocks cover the address: from then
-- on, for a day, every route's blocks are of the whole route (KEYS[2], the
-- pool's; it is Google's behaviour, not one address's), so a block is not
-- probed once per family. The first block that teaches it costs one request.
-- KEYS: route, the pool's "blocks are whole" mark.
-- ARGV: now, job, base ms, max ms, jitter factor, Retry-After ms (0: none), family ('' unknown: the whole route),
--       then every family (to find another's running cooldown).
local now = tonumber(ARGV[1])
local job = ARGV[2]
local asked = tonumber(ARGV[6])
local family = ARGV[7] or ''
local WHOLE_FOR_MS = 86400000
local whole = redis.call('EXISTS', KEYS[2]) == 1
if family ~= '' and not whole then
  for i = 8, #ARGV do
    if ARGV[i] ~= family and tonumber(redis.call('HGET', KEYS[1], 'cool_until:' .. ARGV[i]) or '0') > now then
      whole = true
      redis.call('SET', KEYS[2], now, 'PX', WHOLE_FOR_MS)
      break
    end
  end
end
if whole then family = '' end
local sfx = family ~= '' and (':' .. family) or ''
local f = redis.call('HMGET', KEYS[1], 'cool_until' .. sfx, 'needs_probe' .. sfx, 'probe_job' .. sfx, 'streak' .. sfx)
local cool = tonumber(f[1] or '0')
if cool > now then
  if now + asked > cool then
    redis.call('HSET', KEYS[1], 'cool_until' .. sfx, now + asked)
    return {0, asked}
  end
  return {0, cool - now}
end
if f[2] == '1' and f[3] ~= job then return {0, 0} end
local streak = tonumber(f[4] or '0') + 1
local cooldown = math.max(asked, math.floor(math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(20, streak - 1)) * tonumber(ARGV[5])))
redis.call('HSET', KEYS[1], 'streak' .. sfx, streak, 'cool_until' .. sfx, now + cooldown, 'needs_probe' .. sfx, 1, 'blocked_at', now, 'last_cooldown_ms', cooldown)
redis.call('HDEL', KEYS[1], 'probe_job' .. sfx, 'probe_until' .. sfx)
redis.call('HINCRBY', KEYS[1], 'cooldowns', 1)
return {1, cooldown}
