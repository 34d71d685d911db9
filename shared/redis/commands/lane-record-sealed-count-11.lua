--[[
  Sets a shard's sealed count unless a newer manifest version already set it.
    KEYS[5] sealedCount
    KEYS[6] sealedVersion
    ARGV[1] the shard
    ARGV[2] sealed count
    ARGV[3] manifest version
  Returns 1
]]
--- @include "includes/lane-set-sealed"
setLaneSealed(ARGV[1], ARGV[2], ARGV[3])
return 1
