--[[
  raiseSealedThrough(shard, seq): the shard's sealed-through, never lowered: a manifest's
  sealedThrough only grows, so a lower value is a late or stale report of it.
    KEYS[7] sealedThrough
]]
local function raiseSealedThrough(shard, seq)
  if tonumber(seq) > tonumber(redis.call('HGET', KEYS[7], shard) or '-1') then
    redis.call('HSET', KEYS[7], shard, seq)
  end
end
