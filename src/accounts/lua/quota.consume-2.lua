-- KEYS: the account's counter, its keys' shares. ARGV: limit (-1: none), ttl, key id.
-- Returns {allowed, used}; {-1, 0} when the counter does not exist (seed, then ask again).
local used = redis.call('GET', KEYS[1])
if not used then return {-1, 0} end
used = tonumber(used)
local limit = tonumber(ARGV[1])
if limit >= 0 and used >= limit then return {0, used} end
used = redis.call('INCR', KEYS[1])
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
if redis.call('TTL', KEYS[2]) < 0 then redis.call('EXPIRE', KEYS[2], ARGV[2]) end
return {1, used}
