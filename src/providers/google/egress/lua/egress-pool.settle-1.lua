-- A request of a route has its answer (or failed): the route's in-flight slot
-- is free, if this request still holds it (a slot whose lease ran out may have
-- gone to another request since).
-- KEYS: the route's in-flight key. ARGV: the request's token.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
