-- Marks a queue loaded at the end of a recovery, keeping the server's time at which the recovery began, unless the
-- marker no longer holds the recovery's id: Redis lost its data again after begin-recovery.lua (and so may have lost
-- tasks the recovery brought in), or another recovery took the queue over. An unmarked queue is found by its next
-- claim, which asks for a recovery again.
-- KEYS[1] the queue's loaded marker
-- ARGV[1] the recovery's id
-- Returns 1 if marked, else 0
local value = redis.call('GET', KEYS[1])
local begun = 'recovering:' .. ARGV[1] .. ':'
if not value or string.sub(value, 1, #begun) ~= begun then
    return 0
end
redis.call('SET', KEYS[1], 'loaded:' .. string.sub(value, #begun + 1))
return 1
