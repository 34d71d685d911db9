/**
 * What a client is told about a poisoned shard. The poison's cause is the text of a server
 * failure and may name file paths, object keys or hosts, so a SHARD_POISONED answer keeps
 * its code, generation and time and points to the shard route, where the cause is read and
 * the shard reopened.
 */
import { SluiceError } from '../shared/errors.ts';
import { isPlainObject } from '../shared/plain-object.ts';

export function poisonedAnswer(error: SluiceError): SluiceError {
  const { table, shard, poison } = error.details;
  const shardPath = `/v1/tables/${String(table)}/shards/${String(shard)}`;
  const record = isPlainObject(poison) ? poison : {};
  const generation = typeof record.generation === 'number' ? ` at generation ${record.generation}` : '';
  return new SluiceError(
    'SHARD_POISONED',
    `shard ${String(shard)} of table ${String(table)} is poisoned${generation}: retry once an admin has read ` +
      `the cause at GET ${shardPath} and reopened the shard with POST ${shardPath}/reopen`,
    {
      table,
      shard,
      poison: { code: record.code, generation: record.generation ?? null, at: record.at },
      stats: shardPath,
    },
  );
}
