-- Google answered the route's explore family with its rate limit (a plain 429,
-- no new cookie, no Retry-After): its token bucket for the route is empty now.
-- Ours is emptied too, and its refill learned: Google served `served` explore
-- requests between two such 429s, its bucket empty at both, so it refilled at
-- least served / elapsed (a floor: it may have been full and lost tokens
-- meanwhile). The refill kept is that floor when it is lower than ours (ours
-- was too fast), else three quarters of ours (no earlier 429 to measure from,
-- or a measure that says nothing new), never under the least allowed.
-- KEYS: route. ARGV: now, first refill a minute, least refill a minute.
-- Returns: {ms until the next token, refill a minute kept (as a string)}.
local now = tonumber(ARGV[1])
local b = redis.call('HMGET', KEYS[1], 'bucket_refill', 'bucket_taken', 'bucket_empty_at', 'bucket_taken_at_empty')
local refill = tonumber(b[1] or ARGV[2])
local taken = tonumber(b[2] or '0')
local emptyAt = tonumber(b[3] or '0')
local least = tonumber(ARGV[3])
local learned = refill * 0.75
if emptyAt > 0 and now > emptyAt then
  -- The 429's own request took a token of ours but none of Google's.
  local served = math.max(0, taken - tonumber(b[4] or '0') - 1)
  local measured = served * 60000 / (now - emptyAt)
  if measured < refill then learned = measured end
end
refill = math.max(least, learned)
redis.call('HSET', KEYS[1], 'bucket_tokens', 0, 'bucket_at', now, 'bucket_refill', refill, 'bucket_empty_at', now,
  'bucket_taken_at_empty', taken, 'bucket_raised_at', taken)
redis.call('HINCRBY', KEYS[1], 'bucket_429s', 1)
return {math.ceil(60000 / refill), tostring(refill)}
