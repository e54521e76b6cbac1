-- Extends a lock only if this holder still owns it.
-- KEYS[1] lock key
-- ARGV[1] holder's token
-- ARGV[2] new time to live in ms
-- Returns 1 if extended, else 0
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
