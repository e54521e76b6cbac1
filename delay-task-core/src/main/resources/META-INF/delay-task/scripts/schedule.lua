-- Puts tasks into the future set of one queue, at their execute time.
-- Idempotent: adding a task twice keeps one entry with the latest time.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] in-flight sorted set: task id -> lease deadline (epoch ms)
-- KEYS[3] ready sorted set: task id -> execute time (epoch ms) of tasks due now
-- ARGV[1] '1' for the reload job: leave alone tasks that are in flight (their consumer still owns them) or already
--         ready (they are queued once already); '0' for an add or a reschedule, whose time is the new truth
-- ARGV[2..] pairs of execute time, task id
-- Returns the earliest execute time of the tasks that were not in the future set at that time before, or -1 if
-- there were none: the reload re-sends every task of its window, and only those new to Redis need a wake-up
local reload = ARGV[1] == '1'
local earliest = -1
for i = 2, #ARGV, 2 do
    local id = ARGV[i + 1]
    if not (reload and (redis.call('ZSCORE', KEYS[2], id) or redis.call('ZSCORE', KEYS[3], id))) then
        if not reload then
            redis.call('ZREM', KEYS[3], id)
        end
        if redis.call('ZADD', KEYS[1], 'CH', ARGV[i], id) == 1 then
            local time = tonumber(ARGV[i])
            if earliest == -1 or time < earliest then
                earliest = time
            end
        end
    end
end
return earliest
