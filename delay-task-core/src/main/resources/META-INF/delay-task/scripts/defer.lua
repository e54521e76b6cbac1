-- Takes a task out of flight and makes it due again at a given time (a retry, or a check after a lease elsewhere).
-- KEYS[1] future sorted set: task id -> execute time (epoch ms)
-- KEYS[2] in-flight sorted set: task id -> lease deadline (epoch ms)
-- ARGV[1] task id
-- ARGV[2] execute time (epoch ms)
-- Returns 1
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
