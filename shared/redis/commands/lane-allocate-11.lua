--[[
  Allocates the next seq of a table's lane for a write touching some of its shards, and
  marks it in flight, unless the lane is uninitialized, the table dropped (or the drop flag
  not filled yet), a touched shard poisoned or over a backpressure limit (I18: every touched
  shard's limits in this one script). Completions of earlier entries ride along and are
  applied first whatever the answer. The seq never goes below the floor the store implies;
  each touched shard whose seal is not armed gets it armed, and this writer requests it.
    KEYS[1] seq
    KEYS[2] inflight
    KEYS[3] sections
    KEYS[4] unsealedBytes
    KEYS[5] sealedCount
    KEYS[7] sealedThrough
    KEYS[8] poison
    KEYS[10] sealArmed
    KEYS[11] dropped
    ARGV[1] now (ms): the in-flight mark's allocation time, and the clock of the seal arms
    ARGV[2] max unflushed generations
    ARGV[3] max unsealed bytes
    ARGV[4] seq floor
    ARGV[5] how long an armed seal stays armed (ms)
    ARGV[6] how many shards the write touches, n
    ARGV[7..] the n touched shards, then completions: seq, packed sections, ...
  Returns {armed, unsealed, status, ...}: armed the shards whose seal this call armed (the
  caller must request each, whatever the status); unsealed shard, bytes, ... of the shards
  the completions counted for and, on 'OK', the touched shards; then by status
    'OK', seq | 'UNINITIALIZED' | 'DROPPED' | 'DROP_UNKNOWN'
    | 'POISONED', {shard, record, ...} of every poisoned touched shard
    | 'BACKPRESSURE', shard, 'generations'|'bytes', value of the first touched shard over a limit
]]
--- @include "includes/lane-apply-completions"
--- @include "includes/lane-unsealed"
local now, ttl = ARGV[1], ARGV[5]
local touched = {}
for i = 7, 6 + tonumber(ARGV[6]) do touched[#touched + 1] = ARGV[i] end
local armed, completed = applyLaneCompletions(7 + #touched, now, ttl)
local function refuse(...)
  return {armed, unsealedOf(completed), ...}
end
if redis.call('EXISTS', KEYS[1]) == 0 then return refuse('UNINITIALIZED') end
local dropped = redis.call('GET', KEYS[11])
if dropped == '1' then return refuse('DROPPED') end
if dropped ~= '0' then return refuse('DROP_UNKNOWN') end
local poisoned = {}
for _, shard in ipairs(touched) do
  local record = redis.call('HGET', KEYS[8], shard)
  if record then
    poisoned[#poisoned + 1] = shard
    poisoned[#poisoned + 1] = record
  end
end
if #poisoned > 0 then return refuse('POISONED', poisoned) end
for _, shard in ipairs(touched) do
  local sealed = redis.call('HGET', KEYS[5], shard) or '0'
  if tonumber(sealed) > tonumber(ARGV[2]) then return refuse('BACKPRESSURE', shard, 'generations', sealed) end
  local unsealed = redis.call('HGET', KEYS[4], shard) or '0'
  if tonumber(unsealed) > tonumber(ARGV[3]) then return refuse('BACKPRESSURE', shard, 'bytes', unsealed) end
end
if tonumber(redis.call('GET', KEYS[1])) < tonumber(ARGV[4]) then redis.call('SET', KEYS[1], ARGV[4]) end
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], now, seq)
for _, shard in ipairs(touched) do
  if armLaneSeal(shard, now, ttl) then armed[#armed + 1] = shard end
end
for _, shard in ipairs(completed) do touched[#touched + 1] = shard end
return {armed, unsealedOf(touched), 'OK', tostring(seq)}
