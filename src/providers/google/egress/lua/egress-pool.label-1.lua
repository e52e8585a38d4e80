-- The label Google gave the route's client in its latest token; returns the one before.
local before = redis.call('HGET', KEYS[1], 'user_type')
if before ~= ARGV[1] then redis.call('HSET', KEYS[1], 'user_type', ARGV[1], 'user_type_since', ARGV[2]) end
return before
