--[[
  Sets or clears the cached poison as the manifest of a version has it, as a sync does
  (sync-10.lua), unless Redis holds a poison state from this manifest version or a newer
  one: a reopen that cleared it after the manifest was read, or a poison held only in Redis
  (the store refused it), which carries the version it was raised on.
    KEYS[6] poison
    KEYS[8] poisonVersion
    ARGV[1] manifest version
    ARGV[2] poison record (JSON), '' when the manifest holds none
  Returns 1 when applied, 0 when Redis held this version's state or a newer one
]]
if tonumber(ARGV[1]) <= tonumber(redis.call('GET', KEYS[8]) or '-1') then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[6], ARGV[2]) else redis.call('DEL', KEYS[6]) end
redis.call('SET', KEYS[8], ARGV[1])
return 1
