-- Records the end of a @DistributedLock run, unless a later run has started since: a run that outlived its
-- lockAtMostFor must not overwrite the record of the run that took the lock after it.
-- KEYS[1] the lock's run record (a hash)
-- ARGV[1] id of the run that ended
-- ARGV[2..] field, value, field, value ... to set
-- Returns 1 if recorded, else 0
if redis.call('HGET', KEYS[1], 'runId') ~= ARGV[1] then
    return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
