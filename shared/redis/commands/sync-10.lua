--[[
  Brings Redis in line with the store: the seq counter never below the floor, the sealed
  count and unsealed bytes as the store has them, and the poison as the manifest has it,
  unless Redis holds a poison state from this manifest version or a newer one: a reopen that
  cleared it after this sync read the manifest, or a poison held only in Redis (the store
  refused it), which carries the version it was raised on.
    KEYS[1] seq
    KEYS[4] unsealedBytes
    KEYS[5] sealedCount
    KEYS[6] poison
    KEYS[7] sealedVersion
    KEYS[8] poisonVersion
    ARGV[1] seq floor
    ARGV[2] sealed count
    ARGV[3] manifest version
    ARGV[4] unsealed bytes
    ARGV[5] poison record (JSON), '' when the manifest holds none
  Returns 1
]]
--- @include "includes/set-sealed"
if tonumber(redis.call('GET', KEYS[1]) or '-1') < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
setSealed(ARGV[2], ARGV[3])
redis.call('SET', KEYS[4], ARGV[4])
if tonumber(ARGV[3]) > tonumber(redis.call('GET', KEYS[8]) or '-1') then
  if ARGV[5] ~= '' then redis.call('SET', KEYS[6], ARGV[5]) else redis.call('DEL', KEYS[6]) end
  redis.call('SET', KEYS[8], ARGV[3])
end
return 1
