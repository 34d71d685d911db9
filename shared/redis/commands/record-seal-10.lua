--[[
  After a seal commit: the sealed bytes leave the unsealed count (never below zero), the
  sealed count is the manifest's, and the sealed seqs leave the in-flight and row-count
  bookkeeping.
    KEYS[2] inflight
    KEYS[3] walRows
    KEYS[4] unsealedBytes
    KEYS[5] sealedCount
    KEYS[7] sealedVersion
    ARGV[1] sealed bytes
    ARGV[2] sealed count
    ARGV[3] manifest version
    ARGV[4..] sealed seqs
  Returns 1
]]
--- @include "includes/set-sealed"
local left = redis.call('DECRBY', KEYS[4], ARGV[1])
if left < 0 then redis.call('SET', KEYS[4], 0) end
setSealed(ARGV[2], ARGV[3])
for i = 4, #ARGV do
  redis.call('HDEL', KEYS[3], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
end
return 1
