-- Takes a finished run's task out of flight, unless a later run of it holds it: a task made live again since (a dead
-- task requeued at once by a listener of its death) and claimed anew has a later lease deadline, which this removal,
-- made late by a Redis that was slow to answer, must leave alone, or the new run's task would not be handed out
-- again should its instance die.
-- KEYS[1] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV[1] task id
-- ARGV[2] a lease deadline (epoch ms) later than any the finished run held and earlier than any of a later run
-- Returns 1 if the task was taken out of flight, else 0
local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if deadline and tonumber(deadline) < tonumber(ARGV[2]) then
    redis.call('ZREM', KEYS[1], ARGV[1])
    return 1
end
return 0
