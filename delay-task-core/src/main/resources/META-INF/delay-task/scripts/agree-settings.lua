-- Records the settings the instances of one key prefix must agree on, or says which differ from those recorded.
-- KEYS[1] the settings hash: setting name -> value, as the running instances have them
-- KEYS[2] the holders: instance id -> when its record lapses (epoch ms by this server's clock), unless it renews it;
--         once every holder stopped or lapsed, the settings are forgotten, so that a setting can change
-- ARGV[1] this instance's id
-- ARGV[2] ms this instance's record is kept after this renewal
-- ARGV[3..] pairs of setting name, value
-- Returns pairs of setting name, recorded value, of the settings whose recorded value differs; then nothing is
-- written. Empty when they agree: the hash then holds them all (a setting not recorded yet, by an instance of an
-- older version, is added), and this instance holds the record ARGV[2] ms more.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) == 0 then
    redis.call('DEL', KEYS[1])
end
local differ = {}
for i = 3, #ARGV, 2 do
    local recorded = redis.call('HGET', KEYS[1], ARGV[i])
    if recorded and recorded ~= ARGV[i + 1] then
        differ[#differ + 1] = ARGV[i]
        differ[#differ + 1] = recorded
    end
end
if #differ == 0 then
    for i = 3, #ARGV, 2 do
        redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    end
    local keep = tonumber(ARGV[2])
    redis.call('ZADD', KEYS[2], now + keep, ARGV[1])
    redis.call('PEXPIRE', KEYS[1], keep)
    redis.call('PEXPIRE', KEYS[2], keep)
end
return differ
