-- Moves due work into the ready list of one queue, then claims up to ARGV[1] tasks for a consumer.
-- Due-ness is decided by this server's clock (TIME), so instances whose clocks differ agree.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] ready list: ids of due tasks, oldest first
-- KEYS[3] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV[1] how many tasks to claim (0 only moves due work: the refresh job)
-- ARGV[2] lease in ms
-- ARGV[3] at most this many ids moved from each sorted set per call
-- Returns { now ms, ms until the next future task is due or -1, claimed ids... } as strings
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[3])

-- A lease that ran out means its consumer died or stalled: the task is due again, ahead of newer work.
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, limit)
if #expired > 0 then
    redis.call('LPUSH', KEYS[2], unpack(expired))
    redis.call('ZREM', KEYS[3], unpack(expired))
end

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit)
if #due > 0 then
    redis.call('RPUSH', KEYS[2], unpack(due))
    redis.call('ZREM', KEYS[1], unpack(due))
end

local result = { tostring(now), '-1' }
local deadline = now + tonumber(ARGV[2])
for _ = 1, tonumber(ARGV[1]) do
    local id = redis.call('LPOP', KEYS[2])
    if not id then
        break
    end
    redis.call('ZADD', KEYS[3], deadline, id)
    result[#result + 1] = id
end

local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #nextDue > 0 then
    result[2] = tostring(math.max(0, tonumber(nextDue[2]) - now))
end
return result
