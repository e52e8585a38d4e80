-- Creates the counter (and the shares) from stored figures unless it exists: two
-- processes seeding at once leave one seed. ARGV: ttl, total, then key id, n pairs.
if not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'EX', ARGV[1]) then return 0 end
redis.call('DEL', KEYS[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
if #ARGV >= 3 then redis.call('EXPIRE', KEYS[2], ARGV[1]) end
return 1
