--[[
  A seal has ended. Another is wanted while something past the range it sealed is still to
  seal: an entry that landed (its completion counted), or a seq still in flight within the
  hole timeout. The seal then stays armed, so the writers of those seqs leave the request to
  the seal that ended, which makes it. Otherwise the seal is disarmed and the next
  allocation or completion arms it; a seq handed out that never lands (its writer gave up,
  or died longer ago than the hole timeout) keeps no seals coming.
    KEYS[2] inflight
    KEYS[3] walRows
    KEYS[9] sealArmed
    ARGV[1] the last seq of the sealed range
    ARGV[2] how long an armed seal stays armed (ms)
    ARGV[3] marks allocated before this time (ms) are past the hole timeout
  Returns {wanted, oldest}: wanted 1 when another seal is wanted (the caller must request
  it), 0 otherwise; oldest the allocation time of the oldest live seq in flight past the
  range, or '' when there is none.
]]
--- @include "includes/oldest-live-mark"
local sealedThrough = tonumber(ARGV[1])
local oldest = oldestLiveMark(sealedThrough, ARGV[3])
local function landed()
  for _, seq in ipairs(redis.call('HKEYS', KEYS[3])) do
    if tonumber(seq) > sealedThrough then return true end
  end
  return false
end
if oldest ~= '' or landed() then
  redis.call('SET', KEYS[9], '1', 'PX', ARGV[2])
  return {1, oldest}
end
redis.call('DEL', KEYS[9])
return {0, oldest}
