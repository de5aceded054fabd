"""The Lua scripts rooms_redis.RedisStore runs in Redis: each change to a room that takes more than one step, done
as one, so that two replicas never interleave inside it. KEYS and ARGV are as RedisStore passes them: the room's hash
(KEYS[1]), its pages (KEYS[2]) and answers (KEYS[3]), or the sorted set of rooms (OPEN's KEYS[2]). OPEN, when the
rooms are full, removes the room whose place (its expiry: its last sign of life + LIFETIME_S) is the earliest, if that
room has had no sign of life for GIVE_WAY_S (ARGV[6]), and tells its pages; otherwise it returns the seconds to wait.
"""

OPEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local idle = tonumber(ARGV[3]) - (tonumber(oldest[2]) - tonumber(ARGV[4]))
  if idle < tonumber(ARGV[6]) then return {-1, tostring(tonumber(ARGV[6]) - idle)} end
  local room = ARGV[7] .. oldest[1]
  redis.call('DEL', room, room .. ':pages', room .. ':answers')
  redis.call('ZREM', KEYS[2], oldest[1])
  redis.call('PUBLISH', room, '')
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {0} end
redis.call('HSET', KEYS[1], 'digest', ARGV[2], 'version', 0, 'view', '{}')
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3] + ARGV[4], ARGV[1])
return {1}
"""
JOIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""
SEND = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'view') == ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'view', ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
"""
ASK = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local n = redis.call('HINCRBY', KEYS[1], 'q_number', 1)
redis.call('HSET', KEYS[1], 'q_product', ARGV[1], 'q_cell', ARGV[2], 'q_open', 1)
redis.call('DEL', KEYS[2])
return n
"""
ANSWER = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'q_number') ~= ARGV[2] or redis.call('HGET', KEYS[1], 'q_open') ~= '1'
   or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[3], ARGV[4])
return 1
"""
CLOSE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'q_open') ~= '1' then return 0 end
redis.call('HSET', KEYS[1], 'q_open', 0)
return 1
"""
SCRIPTS = {"open": OPEN, "join": JOIN, "send": SEND, "ask": ASK, "answer": ANSWER, "close": CLOSE}
