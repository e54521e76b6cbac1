-- Moves due work into the ready set of one queue, then claims up to ARGV[1] tasks for a consumer.
-- Due-ness is decided by this server's clock (TIME), so instances whose clocks differ agree.
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] ready sorted set: task id -> execute time (epoch ms) of tasks due now, oldest first; a set, so that moving
--         a task that is already there (the reload brought it in again) does not queue it twice
-- KEYS[3] in-flight sorted set: task id -> lease deadline (epoch ms)
-- KEYS[4] the queue's loaded marker: missing when Redis lost all its data (a restart without persistence, a flush, a
--         fail-over to an empty replica) or no recovery has loaded the queue since Redis started empty
-- KEYS[5] the queue's paused flag: while it exists nothing is claimed, on any instance; due work still moves
-- KEYS[6] the queue's recent claims, for a rate across every consumer: member claimed id and time, score its claim
--         time (epoch ms); expires a period after the last claim
-- ARGV[1] how many tasks to claim (0 only moves due work: the refresh job)
-- ARGV[2] lease in ms
-- ARGV[3] at most this many ids moved from each sorted set per call; a claim moves no more than it claims
-- ARGV[4] '1' if the caller needs the server's time even from a queue that holds nothing, else '0'
-- ARGV[5] most ids of the queue in flight at once, across every consumer ('0' for no such limit): a claim takes no
--         more than the room left, and while it leaves due ids behind for want of room, the next look it asks for is
--         ARGV[6] ms away at the latest, since the ends of other consumers' runs wake no one
-- ARGV[6] see ARGV[5]
-- ARGV[7] most ids of the queue claimed within any ARGV[8] ms, across every consumer ('0' for no such rate): a claim
--         takes no more than the rate leaves, and while it leaves due ids behind for it, the next look it asks for is
--         when the oldest claim counted stops counting
-- ARGV[8] see ARGV[7]
-- Returns { now ms (or -1 when the queue holds nothing and ARGV[4] is '0'), ms until the next future task is due or
--           an in-flight lease runs out, or -1 if neither, '1' if the marker is there else '0', '1' if the queue is
--           paused else '0', how many ids whose lease ran out went back to the ready set, claimed ids... } as strings
redis.replicate_commands()
-- An idle queue is looked at by every dispatcher now and then: answer that look with one command, as dispatchers of
-- many queues would otherwise keep Redis busy with nothing to do. EXISTS counts a key once per mention, so with the
-- marker named 4 times and the paused flag 8 times its count says at once whether the sets are empty (count < 4
-- apart from those), the marker is there (4) and the queue is paused (8).
if ARGV[4] ~= '1' then
    local k = KEYS
    local count = redis.call('EXISTS', k[1], k[2], k[3], k[4], k[4], k[4], k[4],
                             k[5], k[5], k[5], k[5], k[5], k[5], k[5], k[5])
    if count == 4 or count == 12 then
        return { '-1', '-1', '1', (count == 12) and '1' or '0', '0' }
    end
end
local flags = redis.call('MGET', KEYS[4], KEYS[5])
local loaded = flags[1] and '1' or '0'
local paused = flags[2] and 1 or 0
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local count = tonumber(ARGV[1])
-- A claim needs only the oldest `count` due ids of each set: with those moved, the oldest `count` of the ready set
-- are the oldest of all that is due. Moving more would cost every claim of a large burst O(limit) for nothing.
local limit = tonumber(ARGV[3])
if count > 0 and count < limit then
    limit = count
end

-- Moves members with their scores; ZADD takes at most a few thousand arguments at a time, hence the limit.
local function move(from, to, maxScore)
    local entries = redis.call('ZRANGEBYSCORE', from, '-inf', maxScore, 'WITHSCORES', 'LIMIT', 0, limit)
    if #entries == 0 then
        return 0
    end
    local args, ids = {}, {}
    for i = 1, #entries, 2 do
        args[#args + 1] = entries[i + 1]
        args[#args + 1] = entries[i]
        ids[#ids + 1] = entries[i]
    end
    redis.call('ZADD', to, unpack(args))
    redis.call('ZREM', from, unpack(ids))
    return #ids
end

-- A lease that ran out means its consumer died or stalled: the task is due again. Its score, the lease deadline, is
-- in the past, so it comes before work that became due after it.
local redelivered = move(KEYS[3], KEYS[2], now)
move(KEYS[1], KEYS[2], now)

local limited = false
local inFlightLimit = tonumber(ARGV[5] or '0')
if inFlightLimit > 0 and count > 0 then
    -- leases that ran out and were not moved back yet (a move is bounded) hold no room
    local room = inFlightLimit - redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf')
    if room < count then
        count = math.max(room, 0)
        limited = true
    end
end

local rateLimited = false
local ratePermits = tonumber(ARGV[7] or '0')
local ratePeriod = tonumber(ARGV[8] or '0')
if ratePermits > 0 and count > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - ratePeriod)
    local room = ratePermits - redis.call('ZCARD', KEYS[6])
    if room < count then
        count = math.max(room, 0)
        rateLimited = true
    end
end

local result = { tostring(now), '-1', loaded, tostring(paused), tostring(redelivered) }
if count > 0 and paused == 0 then
    local popped = redis.call('ZPOPMIN', KEYS[2], count)
    local deadline = now + tonumber(ARGV[2])
    for i = 1, #popped, 2 do
        redis.call('ZADD', KEYS[3], deadline, popped[i])
        result[#result + 1] = popped[i]
        if ratePermits > 0 then
            -- the time in the member too: a task claimed again within the period counts again
            redis.call('ZADD', KEYS[6], now, popped[i] .. '@' .. now)
        end
    end
    if ratePermits > 0 and #popped > 0 then
        redis.call('PEXPIRE', KEYS[6], ratePeriod)
    end
end

-- read after this claim's own entries: a first claim that the rate cut short counts from itself
local rateLook = nil
if rateLimited then
    local oldest = redis.call('ZRANGE', KEYS[6], 0, 0, 'WITHSCORES')
    if #oldest > 0 then
        rateLook = tonumber(oldest[2]) + ratePeriod + 1
    end
end

-- the next look this queue needs: its next task due, or the next lease to run out (a consumer that dies leaves its
-- tasks to whoever looks then)
local nextDue = nil
for _, key in ipairs({ KEYS[1], KEYS[3] }) do
    local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    if #first > 0 and (nextDue == nil or tonumber(first[2]) < nextDue) then
        nextDue = tonumber(first[2])
    end
end
if paused == 0 and (limited or rateLook ~= nil) and redis.call('ZCARD', KEYS[2]) > 0 then
    local look = limited and (now + tonumber(ARGV[6])) or rateLook
    if rateLook ~= nil and rateLook < look then
        look = rateLook
    end
    if nextDue == nil or look < nextDue then
        nextDue = look
    end
end
if nextDue ~= nil then
    result[2] = tostring(math.max(0, nextDue - now))
end
return result
