-- A right password gives the account back the one attempt it counted (see sign-in-limiter.ts).
-- KEYS: the account's attempts. Never below zero (the window may have ended meanwhile).
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
