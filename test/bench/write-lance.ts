/**
 * LanceDB 0.31 as the write bench's baselines, from the workspace package `@sluice/lance`
 * (LanceDB with the CommonJS Arrow it was built for), to a local directory. Its local file
 * system does not fsync, so none of these acks is durable.
 *
 * - `lancedb`: every writer calls `table.add` when it likes; LanceDB resolves the
 *   concurrent commits itself. `lancedb-serial`: one add at a time (a writer's latency
 *   includes its wait), LanceDB's single-writer pattern.
 * - `lancedb-memwal`: Lance's MemWAL (`setUnenforcedPrimaryKey` + `setLsmWriteSpec` +
 *   `mergeInsert` upserts). It wants each call to target one shard and one table handle per
 *   shard writer, so the input is pre-sharded before the clock starts: an `_shard` column
 *   holds Sluice's own routing of the key, the spec shards by identity on it over the same
 *   shard count, and a write makes one `mergeInsert` per shard it touches, side by side, as
 *   Sluice puts one WAL entry per shard. Its input is the case's, as `table.add` gets it: in
 *   the JSON cases the rows of each shard as records (each with its `_shard`), which LanceDB
 *   converts with the table's schema, as it does for `add`; in the Arrow cases LanceDB's Arrow.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { encodeIpcStream } from '../../shared/arrow/ipc.ts';
import { type JsonRow, jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { keyCodecFor } from '../../shared/arrow/key-codec.ts';
import { parseTableSchema, schemaToJSON, type TableSchema } from '../../shared/arrow/schema.ts';
import { shardOf } from '../../shared/table/shard-routing.ts';
import { benchDir, emptyBenchDir } from './bench-dirs.ts';
import { type Arrivals, type Drive, Driver } from './write-drive.ts';
import type { Contender } from './write-slices.ts';

interface LanceMergeInsert {
  whenMatchedUpdateAll(): LanceMergeInsert;
  whenNotMatchedInsertAll(): LanceMergeInsert;
  execute(data: unknown): Promise<unknown>;
}

interface LanceTable {
  add(data: unknown): Promise<unknown>;
  mergeInsert(on: string): LanceMergeInsert;
  setUnenforcedPrimaryKey(columns: string): Promise<void>;
  setLsmWriteSpec(spec: { specType: 'identity'; column: string }): Promise<void>;
  closeLsmWriters(): Promise<void>;
  countRows(): Promise<number>;
  close(): void;
}

interface LanceConnection {
  createEmptyTable(name: string, schema: unknown): Promise<LanceTable>;
  openTable(name: string): Promise<LanceTable>;
  close(): void;
}

interface LancePackage {
  lancedb: { connect(uri: string): Promise<LanceConnection> };
  arrow: { tableFromIPC(bytes: Uint8Array): { schema: unknown; numRows: number } };
}

export const SHARD_COLUMN = '_shard';

export class Lance {
  readonly version: string;
  private readonly lance: LancePackage;

  constructor() {
    const require = createRequire(import.meta.url);
    this.lance = require('@sluice/lance') as LancePackage;
    const main = createRequire(require.resolve('@sluice/lance')).resolve('@lancedb/lancedb');
    const root = main.slice(0, main.lastIndexOf('@lancedb/lancedb') + '@lancedb/lancedb'.length);
    this.version = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
    ).version;
  }

  /** Sluice Arrow → LanceDB's Arrow copy, through IPC bytes. */
  fromSluice(batch: RecordBatch): unknown {
    return this.lance.arrow.tableFromIPC(encodeIpcStream(batch));
  }

  schemaOf(batch: RecordBatch): unknown {
    return this.lance.arrow.tableFromIPC(encodeIpcStream(batch)).schema;
  }

  connect(dir: string): Promise<LanceConnection> {
    return this.lance.lancedb.connect(dir);
  }
}

/** One write of the MemWAL baseline: its rows per shard, each with the `_shard` column. */
export type ShardedBatch = { shard: number; data: unknown }[];

/** How a baseline is handed its rows: records LanceDB converts itself, or LanceDB's Arrow. */
export type LanceInput = 'json' | 'arrow';

export function memwalSchema(schema: TableSchema): TableSchema {
  const { fields } = schemaToJSON(schema);
  return parseTableSchema(
    { fields: [...fields, { name: SHARD_COLUMN, type: 'int32', nullable: false }] },
    schema.primaryKey,
  );
}

export function shardBatch(
  lance: Lance,
  schema: TableSchema,
  shards: number,
  rows: readonly JsonRow[],
  input: LanceInput,
): ShardedBatch {
  const codec = keyCodecFor(schema);
  const keys = codec.encodeRows(jsonRowsToRecordBatch(schema, rows));
  const byShard = new Map<number, JsonRow[]>();
  rows.forEach((row, i) => {
    const shard = shardOf(keys[i]!, shards);
    const list = byShard.get(shard) ?? [];
    list.push({ ...row, [SHARD_COLUMN]: shard });
    byShard.set(shard, list);
  });
  const withShard = memwalSchema(schema);
  return [...byShard].map(([shard, list]) => ({
    shard,
    data: input === 'json' ? list : lance.fromSluice(jsonRowsToRecordBatch(withShard, list)),
  }));
}

export type LanceSystem = 'lancedb' | 'lancedb-serial' | 'lancedb-memwal';

export interface LanceRun {
  system: LanceSystem;
  driven: Drive;
  rows: number;
  /** Rows `countRows()` sees at the end (rows still in the MemWAL are not counted). */
  countedRows: number;
}

/** A baseline open on its own table for every slice of its case (write-slices.ts). */
export interface LanceContender extends Contender {
  readonly system: LanceSystem;
  /** The figures of every slice, once all ran. */
  finish(): Promise<LanceRun>;
  close(): Promise<void>;
}

interface LanceRunOptions {
  writers: number;
  arrivals: Arrivals;
  batchRows: number;
  schema: unknown;
}

export async function openLanceAdd(
  lance: Lance,
  data: readonly unknown[],
  adds: 'concurrent' | 'serial',
  options: LanceRunOptions & { warmup: unknown },
): Promise<LanceContender> {
  const { table, close } = await openTable(lance, options.schema);
  try {
    await table.add(options.warmup);
  } catch (err) {
    await close();
    throw err;
  }
  let turn: Promise<unknown> = Promise.resolve();
  const add = (i: number) => {
    if (adds === 'concurrent') return table.add(data[i]);
    const mine = turn.then(() => table.add(data[i]));
    turn = mine.catch(() => undefined);
    return mine;
  };
  const system = adds === 'concurrent' ? 'lancedb' : 'lancedb-serial';
  return contender(system, data.length, options, add, () => table.countRows(), close);
}

export async function openLanceMemwal(
  lance: Lance,
  data: readonly ShardedBatch[],
  shards: number,
  options: LanceRunOptions & { warmup: ShardedBatch },
): Promise<LanceContender> {
  const { table, db, close } = await openTable(lance, options.schema);
  const handles: LanceTable[] = [];
  const closeAll = async () => {
    try {
      await Promise.all(handles.map((h) => h.closeLsmWriters()));
      for (const handle of handles) handle.close();
    } finally {
      await close();
    }
  };
  const upsert = (shard: number, rows: unknown) =>
    handles[shard]!.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
  try {
    await table.setUnenforcedPrimaryKey('id');
    await table.setLsmWriteSpec({ specType: 'identity', column: SHARD_COLUMN });
    handles.push(...(await Promise.all(Array.from({ length: shards }, () => db.openTable('bench')))));
    // Opens each shard's writer before the clock starts.
    await Promise.all(options.warmup.map((part) => upsert(part.shard, part.data)));
  } catch (err) {
    await closeAll();
    throw err;
  }
  const write = (i: number) => Promise.all(data[i]!.map((part) => upsert(part.shard, part.data)));
  return contender('lancedb-memwal', data.length, options, write, () => table.countRows(), closeAll);
}

function contender(
  system: LanceSystem,
  batches: number,
  options: LanceRunOptions,
  write: (batch: number) => Promise<unknown>,
  countRows: () => Promise<number>,
  close: () => Promise<void>,
): LanceContender {
  const driver = new Driver({ writers: options.writers, batches, arrivals: options.arrivals });
  let rows = 0;
  return {
    system,
    slice: (seconds) =>
      driver.run(seconds, write, () => {
        rows += options.batchRows;
      }),
    finish: async () => ({ system, driven: driver.result(), rows, countedRows: await countRows() }),
    close,
  };
}

async function openTable(
  lance: Lance,
  schema: unknown,
): Promise<{ table: LanceTable; db: LanceConnection; close(): Promise<void> }> {
  const dir = await benchDir('lancedb');
  const db = await lance.connect(dir);
  const closeDb = async () => {
    db.close();
    await emptyBenchDir(dir);
  };
  let table: LanceTable;
  try {
    table = await db.createEmptyTable('bench', schema);
  } catch (err) {
    await closeDb();
    throw err;
  }
  return {
    table,
    db,
    async close() {
      try {
        table.close();
      } finally {
        await closeDb();
      }
    },
  };
}
