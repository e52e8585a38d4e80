-- Counting only (plans without a limit). KEYS as above; ARGV: ttl, then key id, n pairs.
-- Returns the new total, or -1 when the counter does not exist (nothing counted).
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local total = 0
for i = 2, #ARGV, 2 do
  local n = tonumber(ARGV[i + 1])
  total = redis.call('INCRBY', KEYS[1], n)
  redis.call('HINCRBY', KEYS[2], ARGV[i], n)
end
if redis.call('TTL', KEYS[2]) < 0 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
return total
