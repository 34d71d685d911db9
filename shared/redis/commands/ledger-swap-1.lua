--[[
  Replaces a failure ledger entry only while it still holds what the caller read.
    KEYS[1] entry
    ARGV[1] the entry the caller read, '' when there was none
    ARGV[2] the entry to store
  Returns 1 when swapped, 0 when the entry changed meanwhile
]]
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
