-- Takes a task that a claim lost to the database out of flight, and makes it due again at a given time: when its
-- lease runs out, or when the database says it is due. A sooner time the future set already holds wins: the task's
-- handler may have recorded a retry between the claim's read of the database and this call, and the claim's later
-- time would hide that retry until the lease ran out.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV[1] task id
-- ARGV[2] execute time (epoch ms)
-- Returns 1 if the time was set, 0 if a sooner one was kept
redis.call('ZREM', KEYS[2], ARGV[1])
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
    return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
