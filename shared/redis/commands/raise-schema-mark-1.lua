--[[
  Raises a table's schema mark to a schema version; a mark already at or above it stays.
    KEYS[1] mark
    ARGV[1] the schema version
  Returns nothing
]]
if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
end
