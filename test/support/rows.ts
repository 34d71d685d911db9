/**
 * Rows and tables for tests: a small table with an int64 key, and helpers that write rows
 * through the domain API and read every row back through paginated scans.
 */
import type { JsonRow } from '../../shared/arrow/json-rows.ts';
import { jsonRowsToRecordBatch, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { compareBytes, keyCodecFor } from '../../shared/arrow/key-codec.ts';
import type { TableSchema } from '../../shared/arrow/schema.ts';
import type { Sluice } from '../../shared/sluice.ts';

export function eventsTable(
  name: string,
  options: { shards?: number; settings?: Record<string, unknown> } = {},
) {
  return {
    name,
    schema: {
      fields: [
        { name: 'id', type: 'int64', nullable: false },
        { name: 'name', type: 'utf8', nullable: false },
        { name: 'value', type: 'float64', nullable: true },
      ],
    },
    primaryKey: ['id'],
    shards: options.shards ?? 1,
    settings: { sealDelayMs: 10, ...options.settings },
  };
}

/** Rows with ids from..to (inclusive); `version` tells writes of the same key apart. */
export function eventRows(from: number, to: number, version = 1): JsonRow[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({
    id: from + i,
    name: `event-${from + i}-v${version}`,
    value: (from + i) * version,
  }));
}

export async function writeRows(sluice: Sluice, table: string, rows: JsonRow[]) {
  const def = await sluice.tables.describe(table);
  return sluice.writes.append(table, jsonRowsToRecordBatch(def.schema, rows));
}

/**
 * Every row of the table read through scans of `pageSize` rows, then put in key order (a
 * scan returns the pending rows in key order and the base in its storage order).
 */
export async function readAll(sluice: Sluice, table: string, pageSize = 1000): Promise<JsonRow[]> {
  const pages = [];
  let after: string | null = null;
  do {
    const page = await sluice.reads.scan(table, { limit: pageSize, after });
    pages.push(page.rows);
    after = page.next;
  } while (after);
  // Asked after the scan: a scan that met a newer schema read the definition again.
  const def = await sluice.tables.describe(table);
  return inKeyOrder(
    def.schema,
    pages.flatMap((rows) => tableToJsonRows(def.schema, rows)),
  );
}

export function inKeyOrder(schema: TableSchema, rows: JsonRow[]): JsonRow[] {
  const codec = keyCodecFor(schema);
  const keyOf = (row: JsonRow) => codec.encode(codec.parse(schema.primaryKey.map((c) => row[c])));
  return rows
    .map((row) => ({ row, key: keyOf(row) }))
    .sort((a, b) => compareBytes(a.key, b.key))
    .map((r) => r.row);
}

export async function lookupJson(sluice: Sluice, table: string, key: unknown): Promise<JsonRow | null> {
  const found = await sluice.reads.lookup(table, key);
  const def = await sluice.tables.describe(table);
  return found ? (tableToJsonRows(def.schema, found)[0] ?? null) : null;
}

/** Writes rows and seals and flushes them into a generation of their own on every shard they touch. */
export async function flushedGeneration(sluice: Sluice, table: string, rows: JsonRow[]): Promise<void> {
  await writeRows(sluice, table, rows);
  const def = await sluice.tables.describe(table);
  for (let shard = 0; shard < def.shards; shard++) {
    await sluice.shards.seal(table, shard);
    await sluice.shards.flush(table, shard);
  }
}

/** Pending generations (sealed plus committed-unmerged) summed over the table's shards. */
export async function pendingGenerations(sluice: Sluice, table: string): Promise<number> {
  const def = await sluice.tables.describe(table);
  let total = 0;
  for (let shard = 0; shard < def.shards; shard++)
    total += (await sluice.shards.stats(table, shard)).pendingGenerations;
  return total;
}
