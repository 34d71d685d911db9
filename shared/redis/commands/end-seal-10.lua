--[[
  A seal has ended. When Redis handed out a seq past the range it sealed, another seal is
  wanted: the seal stays armed, so the writers of those seqs leave the request to the seal
  that ended, which makes it. Otherwise the seal is disarmed and the next allocation arms it.
    KEYS[1] seq
    KEYS[9] sealArmed
    ARGV[1] the last seq of the sealed range
    ARGV[2] how long an armed seal stays armed (ms)
  Returns 1 when another seal is wanted (the caller must request it), 0 otherwise.
]]
if tonumber(redis.call('GET', KEYS[1]) or '0') > tonumber(ARGV[1]) then
  redis.call('SET', KEYS[9], '1', 'PX', ARGV[2])
  return 1
end
redis.call('DEL', KEYS[9])
return 0
