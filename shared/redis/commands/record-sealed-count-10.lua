--[[
  Sets the sealed count unless a newer manifest version already set it.
    KEYS[5] sealedCount
    KEYS[7] sealedVersion
    ARGV[1] sealed count
    ARGV[2] manifest version
  Returns 1
]]
--- @include "includes/set-sealed"
setSealed(ARGV[1], ARGV[2])
return 1
