--[[
  setSealed(count, version): sets the sealed count unless a newer manifest version already
  set it.
    KEYS[5] sealedCount
    KEYS[7] sealedVersion
]]
local function setSealed(count, version)
  if tonumber(version) >= tonumber(redis.call('GET', KEYS[7]) or '-1') then
    redis.call('SET', KEYS[5], count)
    redis.call('SET', KEYS[7], version)
  end
end
