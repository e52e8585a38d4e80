-- The embed pages of a route are over Google's quota: they wait, each time in a row twice as long (up to ARGV[3]).
-- An over-quota answer while they already wait (a page that was on its way) does not lengthen it.
-- ARGV: now, base ms, max ms.
local now = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'embed_cool_until', 'embed_streak')
local cool = tonumber(f[1] or '0')
if cool > now then return cool - now end
local streak = tonumber(f[2] or '0') + 1
local wait = math.floor(math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ math.min(20, streak - 1)))
redis.call('HSET', KEYS[1], 'embed_cool_until', now + wait, 'embed_streak', streak)
return wait
