-- Extends the leases of tasks whose handlers still run on the caller's instance, from this server's time, so that
-- no claim hands them out again meanwhile. An id no longer in flight (finished, or handed out again after its lease
-- ran out) is left alone.
-- KEYS[1] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV[1] lease in ms
-- ARGV[2..] the ids
-- Returns { the server's time (epoch ms) the new deadlines count from } as a string
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local deadline = now + tonumber(ARGV[1])
for i = 2, #ARGV do
    redis.call('ZADD', KEYS[1], 'XX', deadline, ARGV[i])
end
return { tostring(now) }
