--[[
  laneSections(packed): the sections of an entry packed as shared/redis/lane-sections.ts
  writes them ('{schemaVersion};{shard}:{start}:{end}:{rows},...'), as a list of
  {shard, bytes}, the shard as the string it is in the packing.
]]
local function laneSections(packed)
  local found = {}
  local list = string.match(packed, ';(.*)$') or ''
  for shard, first, last in string.gmatch(list, '(%d+):(%d+):(%d+):%d+') do
    found[#found + 1] = {shard, tonumber(last) - tonumber(first)}
  end
  return found
end
