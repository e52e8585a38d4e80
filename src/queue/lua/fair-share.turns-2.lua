-- Start-time fair queuing over accounts (see fair-share.ts).
-- KEYS: the waiting set (member -> score), the hash of each owner's last turn.
-- ARGV: scale (what a turn is multiplied by in the waiting set's scores: 2^32 in
--       BullMQ's prioritized set, 1 in a set of our own), the largest turn,
--       record (1: add each member to the waiting set at its turn), the first
--       turn (below it are jobs that are no account's, e.g. webhook matching), then
--       owner, member pairs.
-- Returns each member's turn, in order.
-- The virtual time is the turn of the first still waiting (below the largest
-- turn: what waits there is behind every account, e.g. replays). An owner's
-- next turn is one past the later of that and its own last turn, so an owner
-- with a backlog of 100 takes turns 1..100 and one arriving now takes the turn
-- of the head: served right after it. Nothing waiting: every owner starts over.
local scale = tonumber(ARGV[1])
local largest = tonumber(ARGV[2])
local record = ARGV[3] == '1'
local first = tonumber(ARGV[4])
local head = redis.call('ZRANGEBYSCORE', KEYS[1], tostring(first * scale), '(' .. tostring(largest * scale), 'WITHSCORES', 'LIMIT', 0, 1)
local now = first - 1
if head[2] then
  now = math.floor(tonumber(head[2]) / scale) - 1
else
  redis.call('DEL', KEYS[2])
end
local turns = {}
for i = 5, #ARGV, 2 do
  local owner, member = ARGV[i], ARGV[i + 1]
  local known = record and redis.call('ZSCORE', KEYS[1], member)
  if known then
    turns[#turns + 1] = tonumber(known)
  else
    local last = tonumber(redis.call('HGET', KEYS[2], owner) or '0')
    local turn = math.min(math.max(now, last) + 1, largest - 1)
    redis.call('HSET', KEYS[2], owner, turn)
    if record then redis.call('ZADD', KEYS[1], turn, member) end
    turns[#turns + 1] = turn
  end
end
return turns
