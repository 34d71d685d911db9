--[[
  Sets or clears the cached poison as of a manifest version, unless a newer version's state
  is already there.
    KEYS[6] poison
    KEYS[8] poisonVersion
    ARGV[1] manifest version, '' to keep the version Redis has (the manifest could not be read)
    ARGV[2] poison record (JSON), '' to clear it
  Returns 1 when applied, 0 when a newer state was there
]]
local held = tonumber(redis.call('GET', KEYS[8]) or '-1')
local version = ARGV[1] == '' and held or tonumber(ARGV[1])
if version < held then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[6]) else redis.call('SET', KEYS[6], ARGV[2]) end
redis.call('SET', KEYS[8], version)
return 1
