--[[
  Applies completions on their own. An entry that landed after the last seal ended (nothing
  armed) may have been listed too late for it: when any completion counted, arm the next one.
    KEYS[2] inflight
    KEYS[3] walRows
    KEYS[4] unsealedBytes
    KEYS[9] sealArmed
    ARGV[1] how long an armed seal stays armed (ms)
    ARGV[2..] completions: seq, rows, bytes, ...
  Returns {unsealedBytes, armed '1'|'0'}
]]
--- @include "includes/apply-completions"
--- @include "includes/arm-seal"
local armed = '0'
if applyCompletions(2) > 0 then armed = armSeal(ARGV[1]) end
return {redis.call('GET', KEYS[4]) or '0', armed}
