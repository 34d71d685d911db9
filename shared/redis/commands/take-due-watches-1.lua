--[[
  Removes and returns, in one step, every shard of the seal watch that is due.
    KEYS[1] watch
    ARGV[1] now (ms): members scored at or before it are due
  Returns the due members (`{shard}/{table}`)
]]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due
