-- Takes tasks out of flight that a claim whose answer was lost put there (Redis ran it after its caller gave up
-- waiting, in a stall), and makes them due again, rather than leave them until their lease runs out. Each is taken
-- only while it still has the lease deadline its caller read: a task acknowledged, extended or claimed anew since is
-- left alone. A sooner time the future set already holds wins, as in settle.lua.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV task id, lease deadline read (epoch ms), execute time (epoch ms), in turn, for each task
-- Returns how many tasks were taken out of flight
local released = 0
for i = 1, #ARGV, 3 do
    local deadline = redis.call('ZSCORE', KEYS[2], ARGV[i])
    if deadline and tonumber(deadline) == tonumber(ARGV[i + 1]) then
        redis.call('ZREM', KEYS[2], ARGV[i])
        local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
        if not score or tonumber(score) > tonumber(ARGV[i + 2]) then
            redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
        end
        released = released + 1
    end
end
return released
