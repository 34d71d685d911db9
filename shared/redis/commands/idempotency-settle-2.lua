--[[
  Replaces, or deletes, an idempotency key's value only while it is still the caller's
  pending marker; its noted puts go with it, or live on beside the new value.
    KEYS[1] marker
    KEYS[2] notes: the puts the marker's writer noted before making them
    ARGV[1] the caller's pending marker
    ARGV[2] the value to keep (an ack, or a marker), '' to delete the key and its notes
    ARGV[3] how long the value is kept (ms)
    ARGV[4] 'keep' to keep the notes for as long as the value, else they are deleted
  Returns 1 when settled, 0 when the key no longer held the caller's marker
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 1
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] == 'keep' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) else redis.call('DEL', KEYS[2]) end
return 1
