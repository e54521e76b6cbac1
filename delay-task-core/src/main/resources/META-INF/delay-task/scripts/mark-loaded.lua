-- Marks a queue loaded at the end of a recovery, unless the marker no longer holds the recovery's token: Redis lost
-- its data again after the recovery wrote the token (and so may have lost tasks the recovery brought in), or another
-- recovery took the queue over. An unmarked queue is found by its next claim, which asks for a recovery again.
-- KEYS[1] the queue's loaded marker
-- ARGV[1] the token the recovery wrote into the marker before it read the database
-- ARGV[2] the value of a loaded marker
-- Returns 1 if marked, else 0
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
