-- Moves the feed's marker to the horizon a pass reached, unless the marker changed since the pass began: Redis lost
-- its data meanwhile (and so may have lost what the pass sent), or another pass moved it. A marker that was not moved
-- has the next pass read from the last horizon it holds, or, once missing, read the whole window again.
-- KEYS[1] the feed's marker
-- ARGV[1] the marker the pass began from
-- ARGV[2] the marker of the horizon it reached
-- Returns 1 if moved, else 0
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
