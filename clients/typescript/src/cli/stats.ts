/** `sluice stats <table>`: the table's counts and one line per shard; `--watch` redraws it. */
import type { SluiceClient } from '../client.ts';
import type { ShardStats, TableDescription } from '../types.ts';
import { textTable } from './text-table.ts';

const HEADER = [
  'shard',
  'frontier',
  'cursor',
  'generation',
  'sealed',
  'committed',
  'merged',
  'pending',
  'unsealed',
  'poison',
];

function shardLine(s: ShardStats): string[] {
  const poison = s.poison
    ? `${s.poison.code} at generation ${s.poison.generation ?? '-'}: ${s.poison.cause}`
    : '-';
  return [
    String(s.shard),
    String(s.frontier),
    String(s.walCursor),
    String(s.currentGeneration),
    String(s.sealed.length),
    String(s.committed.length),
    String(s.mergedThrough),
    String(s.pendingGenerations),
    String(s.unsealedEntries),
    poison,
  ];
}

export function renderStats(table: TableDescription, shards: ShardStats[]): string {
  const { stats } = table;
  const head =
    `${table.name}: ${table.shards} shards, base version ${stats.baseVersion} (${stats.baseRows} rows), ` +
    `pending ${stats.pendingGenerations} generations, ${stats.poisonedShards} poisoned${table.drain ? ', drained' : ''}`;
  return `${head}\n${textTable([HEADER, ...shards.map(shardLine)])}\n`;
}

export async function statsOnce(client: SluiceClient, table: string): Promise<string> {
  const [description, shards] = await Promise.all([client.describeTable(table), client.tableShards(table)]);
  return renderStats(description, shards);
}

export async function watchStats(
  client: SluiceClient,
  table: string,
  intervalMs: number,
  signal: AbortSignal,
) {
  while (!signal.aborted) {
    const text = await statsOnce(client, table);
    process.stdout.write(
      `${process.stdout.isTTY ? '\x1b[2J\x1b[H' : ''}${new Date().toISOString()}\n${text}`,
    );
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
  }
}
