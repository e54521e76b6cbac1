-- Puts tasks into the future set of one queue, at their execute time.
-- Idempotent: adding a task twice keeps one entry with the latest time.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV[1] '1' to leave alone tasks that are in flight (the reload job: their consumer still owns them), else '0'
-- ARGV[2..] pairs of execute time, task id
-- Returns the number of tasks put into the future set
local skipInFlight = ARGV[1] == '1'
local added = 0
for i = 2, #ARGV, 2 do
    local id = ARGV[i + 1]
    if not (skipInFlight and redis.call('ZSCORE', KEYS[2], id)) then
        redis.call('ZADD', KEYS[1], ARGV[i], id)
        added = added + 1
    end
end
return added
