--[[
  Sets or clears a shard's cached poison as of a manifest version, unless a newer version's
  state is already there.
    KEYS[8] poison
    KEYS[9] poisonVersion
    ARGV[1] the shard
    ARGV[2] manifest version, '' to keep the version Redis has (the manifest could not be read)
    ARGV[3] poison record (JSON), '' to clear it
  Returns 1 when applied, 0 when a newer state was there
]]
local shard = ARGV[1]
local held = tonumber(redis.call('HGET', KEYS[9], shard) or '-1')
local version = ARGV[2] == '' and held or tonumber(ARGV[2])
if version < held then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[8], shard) else redis.call('HSET', KEYS[8], shard, ARGV[3]) end
redis.call('HSET', KEYS[9], shard, string.format('%d', version))
return 1
