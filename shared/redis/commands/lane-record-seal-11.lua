--[[
  After a shard's seal commit: its sealed bytes leave its unsealed count (never below zero),
  its sealed count is the manifest's unless a newer one set it, and its sealed-through
  moves to the seal's. Below the lowest sealed-through of all the table's shards (a shard
  that never reported a seal counting as 0), every seq is occupied (an entry or a
  tombstone) and sealed by every shard: its in-flight mark and its entry's sections go.
  Not sooner: a shard still to seal the seq needs the sections, and the mark, so that the
  entry's late completion still counts its bytes and arms its seal.
    KEYS[2] inflight
    KEYS[3] sections
    KEYS[4] unsealedBytes
    KEYS[5] sealedCount
    KEYS[6] sealedVersion
    KEYS[7] sealedThrough
    ARGV[1] the shard
    ARGV[2] sealed bytes
    ARGV[3] sealed count
    ARGV[4] manifest version
    ARGV[5] the last seq of the range sealed
    ARGV[6] how many shards the table has
  Returns 1
]]
--- @include "includes/lane-set-sealed"
--- @include "includes/lane-sealed-through"
local shard = ARGV[1]
if redis.call('HINCRBY', KEYS[4], shard, 0 - tonumber(ARGV[2])) < 0 then redis.call('HSET', KEYS[4], shard, 0) end
setLaneSealed(shard, ARGV[3], ARGV[4])
raiseSealedThrough(shard, ARGV[5])
local lowest = tonumber(ARGV[5])
for other = 0, tonumber(ARGV[6]) - 1 do
  lowest = math.min(lowest, tonumber(redis.call('HGET', KEYS[7], other) or '0'))
end
for _, seq in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if tonumber(seq) <= lowest then redis.call('ZREM', KEYS[2], seq) end
end
for _, seq in ipairs(redis.call('HKEYS', KEYS[3])) do
  if tonumber(seq) <= lowest then redis.call('HDEL', KEYS[3], seq) end
end
return 1
