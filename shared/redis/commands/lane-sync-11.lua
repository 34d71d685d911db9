--[[
  Brings a table lane's Redis state in line with the store: the seq counter never below the
  floor (never lowered: a seq handed out may still land), the drop flag left to its own
  filling, and per shard the sealed count and unsealed bytes as the store has them, its
  sealed-through never lowered, and its poison as the manifest has it unless Redis holds a
  poison state from this manifest version or a newer one: a reopen that cleared it after
  this sync read the manifest, or a poison held only in Redis (the store refused it), which
  carries the version it was raised on.
    KEYS[1] seq
    KEYS[4] unsealedBytes
    KEYS[5] sealedCount
    KEYS[6] sealedVersion
    KEYS[7] sealedThrough
    KEYS[8] poison
    KEYS[9] poisonVersion
    ARGV[1] seq floor
    ARGV[2..] per shard: shard, sealed count, manifest version, unsealed bytes, sealed
      through, poison record (JSON, '' when the manifest holds none), ...
  Returns 1
]]
--- @include "includes/lane-set-sealed"
--- @include "includes/lane-sealed-through"
if tonumber(redis.call('GET', KEYS[1]) or '-1') < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
for i = 2, #ARGV, 6 do
  local shard, version, poison = ARGV[i], ARGV[i + 2], ARGV[i + 5]
  setLaneSealed(shard, ARGV[i + 1], version)
  redis.call('HSET', KEYS[4], shard, ARGV[i + 3])
  raiseSealedThrough(shard, ARGV[i + 4])
  if tonumber(version) > tonumber(redis.call('HGET', KEYS[9], shard) or '-1') then
    if poison ~= '' then redis.call('HSET', KEYS[8], shard, poison) else redis.call('HDEL', KEYS[8], shard) end
    redis.call('HSET', KEYS[9], shard, version)
  end
end
return 1
