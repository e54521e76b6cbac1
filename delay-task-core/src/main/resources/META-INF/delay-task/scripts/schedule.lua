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
-- A reload looks for a task in the in-flight and ready sets only when it is due by the Redis clock: a task is claimed
-- and made ready at its time at the earliest, so one still to come is in neither, unless an earlier run of it is
-- being acknowledged with a retry at that time, which puts it into the future set too. The two lookups were two
-- thirds of the Redis time of a reload, which re-sends its whole window every interval.
local reload = ARGV[1] == '1'
local now = -1
if reload then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local earliest = -1
for i = 2, #ARGV, 2 do
    local id = ARGV[i + 1]
    local time = tonumber(ARGV[i])
    if not (reload and time <= now and (redis.call('ZSCORE', KEYS[2], id) or redis.call('ZSCORE', KEYS[3], id))) then
        if not reload then
            redis.call('ZREM', KEYS[3], id)
        end
        if redis.call('ZADD', KEYS[1], 'CH', ARGV[i], id) == 1 then
            if earliest == -1 or time < earliest then
                earliest = time
            end
        end
    end
end
return earliest
