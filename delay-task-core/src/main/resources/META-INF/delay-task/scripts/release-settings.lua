-- An instance that stops gives up its hold of the recorded settings; the last holder's going forgets them.
-- KEYS[1] the settings hash, KEYS[2] the holders (see agree-settings.lua)
-- ARGV[1] the instance's id
-- Returns how many holders are left.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local left = redis.call('ZCARD', KEYS[2])
if left == 0 then
    redis.call('DEL', KEYS[1], KEYS[2])
end
return left
