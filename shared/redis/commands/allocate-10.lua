--[[
  Allocates the next WAL seq of a shard and marks it in flight, unless the shard is
  uninitialized, its table dropped (or its copy of the drop flag not filled yet), the shard
  poisoned or over a backpressure limit; completions of earlier entries ride along and are
  applied first whatever the answer. The seq never goes below the floor the
  store implies, and the first allocation since a seal ended with nothing left arms the next seal.
    KEYS[1] seq
    KEYS[2] inflight
    KEYS[3] walRows
    KEYS[4] unsealedBytes
    KEYS[5] sealedCount
    KEYS[6] poison
    KEYS[9] sealArmed
    KEYS[10] dropped
    ARGV[1] now (ms), the allocation time of the in-flight mark
    ARGV[2] max unflushed generations
    ARGV[3] max unsealed bytes
    ARGV[4] seq floor
    ARGV[5] how long an armed seal stays armed (ms)
    ARGV[6..] completions: seq, rows, bytes, ...
  Returns {'OK', seq, unsealedBytes, armed '1'|'0'} | {'UNINITIALIZED'} | {'DROPPED'}
    | {'DROP_UNKNOWN'} | {'POISONED', record}
    | {'BACKPRESSURE', 'generations'|'bytes', value}
]]
--- @include "includes/apply-completions"
--- @include "includes/arm-seal"
applyCompletions(6)
if redis.call('EXISTS', KEYS[1]) == 0 then return {'UNINITIALIZED'} end
local dropped = redis.call('GET', KEYS[10])
if dropped == '1' then return {'DROPPED'} end
if dropped ~= '0' then return {'DROP_UNKNOWN'} end
local poison = redis.call('GET', KEYS[6])
if poison then return {'POISONED', poison} end
local sealed = tonumber(redis.call('GET', KEYS[5]) or '0')
if sealed > tonumber(ARGV[2]) then return {'BACKPRESSURE', 'generations', tostring(sealed)} end
local unsealed = tonumber(redis.call('GET', KEYS[4]) or '0')
if unsealed > tonumber(ARGV[3]) then return {'BACKPRESSURE', 'bytes', tostring(unsealed)} end
if tonumber(redis.call('GET', KEYS[1])) < tonumber(ARGV[4]) then redis.call('SET', KEYS[1], ARGV[4]) end
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], ARGV[1], seq)
return {'OK', tostring(seq), tostring(unsealed), armSeal(ARGV[5])}
