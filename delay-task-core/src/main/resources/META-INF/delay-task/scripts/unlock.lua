-- Releases a lock only if this holder still owns it, so an instance never deletes a lock that expired and
-- was taken by another. With a positive ARGV[2] the lock is kept that much longer instead (lockAtLeastFor).
-- KEYS[1] lock key
-- ARGV[1] holder's token
-- ARGV[2] ms to keep the lock before it lapses; 0 deletes it now
-- Returns 1 if this holder owned the lock, else 0
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
local keep = tonumber(ARGV[2])
if keep > 0 then
    redis.call('PEXPIRE', KEYS[1], keep)
else
    redis.call('DEL', KEYS[1])
end
return 1
