--[[
  applyCompletions(from): applies the completions in ARGV[from..], triples of seq, rows and
  bytes. A seq counts only while it is still marked in flight: a seal that already sealed it,
  an abandon, or a Redis that lost the mark since then would otherwise count its bytes twice.
  Returns how many counted.
    KEYS[2] inflight
    KEYS[3] walRows
    KEYS[4] unsealedBytes
]]
local function applyCompletions(from)
  local applied = 0
  for i = from, #ARGV, 3 do
    if redis.call('ZREM', KEYS[2], ARGV[i]) == 1 then
      redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
      redis.call('INCRBY', KEYS[4], ARGV[i + 2])
      applied = applied + 1
    end
  end
  return applied
end
