-- Reads how many ids one queue holds in each state and how long its oldest due id has waited, for metrics. Changes
-- nothing. Due-ness is decided by this server's clock (TIME), as the claim decides it.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms); ids due by now wait here until a claim moves them
-- KEYS[2] ready sorted set: task id -> execute time (epoch ms) of tasks due now
-- KEYS[3] in-flight sorted set: task id -> lease deadline (epoch ms)
-- Returns { ids not due yet, ids due and not claimed (ready, and those of the future set due by now), ids in flight,
--           ms the oldest due id not claimed has waited past its execute time, or 0 if there is none, leaving out
--           ids due at once (execute time 0) } as strings
-- every instance samples every queue: an empty one costs one command
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3]) == 0 then
    return { '0', '0', '0', '0' }
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local dueInFuture = redis.call('ZCOUNT', KEYS[1], '-inf', now)
local future = redis.call('ZCARD', KEYS[1]) - dueInFuture
local ready = redis.call('ZCARD', KEYS[2]) + dueInFuture
local inFlight = redis.call('ZCARD', KEYS[3])

-- the oldest due id is the first of the ready set or of the future set, whichever is older; ids of tasks added to be
-- due at once have the execute time 0, not the time they were added, so they cannot say how long they waited
local oldest = nil
for _, key in ipairs({ KEYS[2], KEYS[1] }) do
    local first = redis.call('ZRANGEBYSCORE', key, '(0', now, 'WITHSCORES', 'LIMIT', 0, 1)
    if #first > 0 then
        local dueAt = tonumber(first[2])
        if oldest == nil or dueAt < oldest then
            oldest = dueAt
        end
    end
end
local waited = 0
if oldest ~= nil then
    waited = now - oldest
end
return { tostring(future), tostring(ready), tostring(inFlight), tostring(waited) }
