-- Releases "being asked" only for the job that holds it (KEYS[1], token ARGV[1]):
-- a job that outlived its hold must not release the next asker's.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
