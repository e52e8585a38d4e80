-- Counts one sign-in attempt before its password is checked (see sign-in-limiter.ts).
-- KEYS: the client, then the held keys (the address; the account when known): two or three.
-- ARGV: client limit, client window seconds, then limit and window seconds per held key.
-- Returns 0 (counted, go on) or the seconds to wait (a client over its limit spends no other count).
local function ttl(key) local t = redis.call('TTL', key) if t < 1 then return 1 end return t end
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then return ttl(KEYS[1]) end
for i = 2, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[i * 2 - 1]) then return ttl(KEYS[i]) end
end
for i = 2, #KEYS do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[i * 2]) end
end
return 0
