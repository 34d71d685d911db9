--[[
  unsealedOf(shards): the unsealed bytes of each of the shards, each once, as a flat list
  shard, bytes, shard, bytes, ... for the writer to ask for an urgent seal.
    KEYS[4] unsealedBytes
]]
local function unsealedOf(shards)
  local found, seen = {}, {}
  for _, shard in ipairs(shards) do
    if not seen[shard] then
      seen[shard] = true
      found[#found + 1] = shard
      found[#found + 1] = redis.call('HGET', KEYS[4], shard) or '0'
    end
  end
  return found
end
