--[[
  oldestLiveMark(sealedThrough, liveSince): the allocation time of the oldest seq in flight
  past the sealed range and allocated at or after liveSince (ms), or '' when there is none.
  Marks come in allocation order, so the first one past the range is the oldest.
    KEYS[2] inflight
]]
local function oldestLiveMark(sealedThrough, liveSince)
  local marks = redis.call('ZRANGEBYSCORE', KEYS[2], liveSince, '+inf', 'WITHSCORES')
  for i = 1, #marks, 2 do
    if tonumber(marks[i]) > sealedThrough then return marks[i + 1] end
  end
  return ''
end
