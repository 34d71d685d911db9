--[[
  Notes a WAL put an idempotent write is about to make, only while the write still holds
  its key: a writer whose claim was taken over (its lease lapsed and a retry settled it)
  must not put.
    KEYS[1] marker
    KEYS[2] notes
    ARGV[1] the writer's pending marker
    ARGV[2] the put: JSON {shard, seq, entry, rows}
  Returns 1 when noted, 0 when the key no longer held the writer's marker
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
return 1
