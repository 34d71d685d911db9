--[[
  Applies completions on their own, arming the seal of each shard a counted entry has a
  section for, if none is armed: the entry may have landed after that shard's last seal
  listed the lane.
    KEYS[2] inflight
    KEYS[3] sections
    KEYS[4] unsealedBytes
    KEYS[7] sealedThrough
    KEYS[10] sealArmed
    ARGV[1] now (ms), the clock of the seal arms
    ARGV[2] how long an armed seal stays armed (ms)
    ARGV[3..] completions: seq, packed sections, ...
  Returns {armed, unsealed}: the shards whose seal this armed (the caller must request
  each), and shard, bytes, ... of every shard a counted completion has a section for
]]
--- @include "includes/lane-apply-completions"
--- @include "includes/lane-unsealed"
local armed, completed = applyLaneCompletions(3, ARGV[1], ARGV[2])
return {armed, unsealedOf(completed)}
