-- Begins the recovery of one queue, before the recovery reads the database: writes the recovery's id and this
-- server's time into the queue's loaded marker. Claims count the marker as present from now on; Redis loses it with
-- the rest of its data if it loses data again meanwhile, and mark-loaded.lua then leaves the queue unmarked.
-- KEYS[1] the queue's loaded marker
-- ARGV[1] the recovery's id
-- Returns 1
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('SET', KEYS[1], 'recovering:' .. ARGV[1] .. ':' .. now)
return 1
