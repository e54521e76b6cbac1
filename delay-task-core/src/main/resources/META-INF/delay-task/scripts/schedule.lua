-- Puts tasks into the future set of one queue, at their execute time.
-- Idempotent: adding a task twice keeps one entry with the latest time.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] in-flight sorted set: task id -> lease deadline (epoch ms)
-- KEYS[3] ready sorted set: task id -> execute time (epoch ms) of tasks due now
-- ARGV[1] '1' for the reload job: leave alone tasks that are in flight (their consumer still owns them) or already
--         ready (they are queued once already); '0' for an add or a reschedule, whose time is the new truth
-- ARGV[2..] pairs of execute time, task id
-- Returns the number of tasks put into the future set
local reload = ARGV[1] == '1'
local added = 0
for i = 2, #ARGV, 2 do
    local id = ARGV[i + 1]
    if not (reload and (redis.call('ZSCORE', KEYS[2], id) or redis.call('ZSCORE', KEYS[3], id))) then
        if not reload then
            redis.call('ZREM', KEYS[3], id)
        end
        redis.call('ZADD', KEYS[1], ARGV[i], id)
        added = added + 1
    end
end
return added
