--[[
  armSeal(ttl): arms the shard's seal for ttl ms unless one is armed already.
  Returns '1' when this call armed it, '0' otherwise.
    KEYS[9] sealArmed
]]
local function armSeal(ttl)
  if redis.call('SET', KEYS[9], '1', 'NX', 'PX', ttl) then return '1' end
  return '0'
end
