--[[
  applyLaneCompletions(from, now, ttl): applies the completions in ARGV[from..], pairs of
  seq and packed sections. An entry counts only while its seq is still marked in flight: an
  abandon, every shard's seal past it, or a Redis that lost the mark since then would
  otherwise count it twice. A counted entry's sections are kept for the seals. Each section
  for a shard that has not sealed past the seq yet counts its bytes as that shard's unsealed
  bytes and arms its seal if none is: the entry may have landed after that shard's last
  seal listed the lane. A shard that sealed past it (its seal found the entry before the
  completion came) has its bytes already.
  Returns the shards whose seal this armed, and the shards a counted section touched, as
  lists of shards as strings, each once.
    KEYS[2] inflight
    KEYS[3] sections
    KEYS[4] unsealedBytes
    KEYS[7] sealedThrough
]]
--- @include "includes/lane-sections"
--- @include "includes/lane-arm-seal"
local function applyLaneCompletions(from, now, ttl)
  local armed, touched, seen = {}, {}, {}
  for i = from, #ARGV, 2 do
    local seq = tonumber(ARGV[i])
    if redis.call('ZREM', KEYS[2], ARGV[i]) == 1 then
      redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
      for _, section in ipairs(laneSections(ARGV[i + 1])) do
        local shard = section[1]
        if seq > tonumber(redis.call('HGET', KEYS[7], shard) or '0') then
          redis.call('HINCRBY', KEYS[4], shard, section[2])
          if not seen[shard] then
            seen[shard] = true
            touched[#touched + 1] = shard
            if armLaneSeal(shard, now, ttl) then armed[#armed + 1] = shard end
          end
        end
      end
    end
  end
  return armed, touched
end
