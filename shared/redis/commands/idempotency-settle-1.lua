--[[
  Replaces, or deletes, an idempotency key's value only while it is still the caller's
  pending marker.
    KEYS[1] marker
    ARGV[1] the caller's pending marker
    ARGV[2] the value to keep (the ack), '' to delete the key
    ARGV[3] how long the value is kept (ms)
  Returns 1 when settled, 0 when the key no longer held the caller's marker
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1
