--[[
  armLaneSeal(shard, now, ttl): arms the shard's seal until now + ttl (ms) unless it is armed
  past now already. The value is the arm's expiry because a hash field cannot expire on the
  Redis versions Sluice supports; an arm past its time counts as absent.
  Returns true when this call armed it.
    KEYS[10] sealArmed
]]
local function armLaneSeal(shard, now, ttl)
  local expiry = tonumber(redis.call('HGET', KEYS[10], shard) or '0')
  if expiry > tonumber(now) then return false end
  redis.call('HSET', KEYS[10], shard, string.format('%d', tonumber(now) + tonumber(ttl)))
  return true
end
