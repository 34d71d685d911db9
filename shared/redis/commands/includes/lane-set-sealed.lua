--[[
  setLaneSealed(shard, count, version): sets the shard's sealed count unless a newer
  manifest version already set it.
    KEYS[5] sealedCount
    KEYS[6] sealedVersion
]]
local function setLaneSealed(shard, count, version)
  if tonumber(version) >= tonumber(redis.call('HGET', KEYS[6], shard) or '-1') then
    redis.call('HSET', KEYS[5], shard, count)
    redis.call('HSET', KEYS[6], shard, version)
  end
end
