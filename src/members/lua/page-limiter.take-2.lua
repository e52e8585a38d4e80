-- Counts one account page (see page-limiter.ts).
-- KEYS: the session's count, the account's count (one hash tag). ARGV: session limit, account limit, window seconds.
-- Returns 0 (counted on both), or the seconds to wait (counted on neither).
for i = 1, 2 do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[i]) then
    local t = redis.call('TTL', KEYS[i])
    if t < 1 then return 1 end
    return t
  end
end
for i = 1, 2 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
end
return 0
