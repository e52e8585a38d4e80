-- A writer committed a change the API may show: the read-model version goes up
-- by one, with the WAL position of that commit, and the new value is published.
-- KEYS: version, lsn (one hash tag: keys.ts). ARGV: channel, lsn ('' when unknown).
-- Returns the new version.
-- A fresh or flushed Redis has no version: it starts from the clock (same lines
-- as in read-model.read-2.lua), so versions keep growing across a Redis reset.
local version = redis.call('GET', KEYS[1])
if not version then
  local t = redis.call('TIME')
  redis.call('SET', KEYS[1], t[1] .. string.format('%06d', t[2]), 'NX')
  version = redis.call('GET', KEYS[1])
end
redis.call('INCR', KEYS[1])
-- Published as Redis stores it (GET), not as Lua prints a number: Lua would
-- write 1795419786648900 as 1.7954197866489e+15.
version = redis.call('GET', KEYS[1])
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
redis.call('PUBLISH', ARGV[1], version .. ' ' .. ARGV[2])
return version
