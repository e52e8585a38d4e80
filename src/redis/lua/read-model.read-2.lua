-- The read-model version and the WAL position of its writes (see read-model-version.ts).
-- KEYS: version, lsn (one hash tag: keys.ts).
-- Returns {version, lsn ('' when unknown)}.
-- A fresh or flushed Redis has no version: it starts from the clock (same lines
-- as in read-model.bump-2.lua), so versions keep growing across a Redis reset.
local version = redis.call('GET', KEYS[1])
if not version then
  local t = redis.call('TIME')
  redis.call('SET', KEYS[1], t[1] .. string.format('%06d', t[2]), 'NX')
  version = redis.call('GET', KEYS[1])
end
return {version, redis.call('GET', KEYS[2]) or ''}
