-- Takes back the marker begin-recovery.lua wrote, when the recovery's reload failed: claims then find the queue
-- unmarked again and ask for another recovery, rather than count it loaded with tasks missing. A marker that no
-- longer holds the recovery's id (another recovery took the queue over, or Redis lost it) is left alone.
-- KEYS[1] the queue's loaded marker
-- ARGV[1] the recovery's id
-- Returns 1 if taken back, else 0
local value = redis.call('GET', KEYS[1])
local begun = 'recovering:' .. ARGV[1] .. ':'
if not value or string.sub(value, 1, #begun) ~= begun then
    return 0
end
redis.call('DEL', KEYS[1])
return 1
