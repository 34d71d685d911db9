--[[
  A shard's seal has ended. Another is wanted while something past the range it sealed is
  still to seal for this shard: a landed entry (its completion counted) with a section for
  it, or a seq still in flight within the hole timeout, whichever shard it is for (the seal
  must wait for its key to be occupied). The seal then stays armed, its arm refreshed, so
  the writers of those seqs leave the request to the seal that ended, which makes it.
  Otherwise the shard's seal is disarmed and the next allocation or completion touching it
  arms it; an entry of other shards keeps no seal of this one coming.
    KEYS[2] inflight
    KEYS[3] sections
    KEYS[10] sealArmed
    ARGV[1] the shard
    ARGV[2] the last seq of the range it sealed
    ARGV[3] how long an armed seal stays armed (ms)
    ARGV[4] marks allocated before this time (ms) are past the hole timeout
    ARGV[5] now (ms), the clock of the seal arms
  Returns {wanted, oldest}: wanted 1 when another seal is wanted (the caller must request
  it), 0 otherwise; oldest the allocation time of the oldest live seq in flight past the
  range, or '' when there is none.
]]
--- @include "includes/lane-sections"
--- @include "includes/oldest-live-mark"
local shard = ARGV[1]
local sealedThrough = tonumber(ARGV[2])
local oldest = oldestLiveMark(sealedThrough, ARGV[4])
local function landed()
  local entries = redis.call('HGETALL', KEYS[3])
  for i = 1, #entries, 2 do
    if tonumber(entries[i]) > sealedThrough then
      for _, section in ipairs(laneSections(entries[i + 1])) do
        if section[1] == shard then return true end
      end
    end
  end
  return false
end
if oldest ~= '' or landed() then
  redis.call('HSET', KEYS[10], shard, string.format('%d', tonumber(ARGV[5]) + tonumber(ARGV[3])))
  return {1, oldest}
end
redis.call('HDEL', KEYS[10], shard)
return {0, oldest}
