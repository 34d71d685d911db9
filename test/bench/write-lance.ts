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
import { type Arrivals, type Drive, drive } from './write-drive.ts';

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

export interface LanceRun {
  system: 'lancedb' | 'lancedb-serial' | 'lancedb-memwal';
  driven: Drive;
  rows: number;
  /** Rows `countRows()` sees at the end (rows still in the MemWAL are not counted). */
  countedRows: number;
}

interface LanceRunOptions {
  writers: number;
  seconds: number;
  arrivals: Arrivals;
  batchRows: number;
  schema: unknown;
}

export async function runLanceAdd(
  lance: Lance,
  data: readonly unknown[],
  adds: 'concurrent' | 'serial',
  options: LanceRunOptions & { warmup: unknown },
): Promise<LanceRun> {
  return withTable(lance, options.schema, async (table) => {
    await table.add(options.warmup);
    let turn: Promise<unknown> = Promise.resolve();
    const add = (i: number) => {
      if (adds === 'concurrent') return table.add(data[i]);
      const mine = turn.then(() => table.add(data[i]));
      turn = mine.catch(() => undefined);
      return mine;
    };
    let rows = 0;
    const driven = await drive(
      {
        writers: options.writers,
        batches: data.length,
        seconds: options.seconds,
        arrivals: options.arrivals,
      },
      add,
      () => {
        rows += options.batchRows;
      },
    );
    return {
      system: adds === 'concurrent' ? 'lancedb' : 'lancedb-serial',
      driven,
      rows,
      countedRows: await table.countRows(),
    };
  });
}

export async function runLanceMemwal(
  lance: Lance,
  data: readonly ShardedBatch[],
  shards: number,
  options: LanceRunOptions & { warmup: ShardedBatch },
): Promise<LanceRun> {
  return withTable(lance, options.schema, async (table, db) => {
    await table.setUnenforcedPrimaryKey('id');
    await table.setLsmWriteSpec({ specType: 'identity', column: SHARD_COLUMN });
    const handles = await Promise.all(Array.from({ length: shards }, () => db.openTable('bench')));
    const upsert = (shard: number, rows: unknown) =>
      handles[shard]!.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    try {
      // Opens each shard's writer before the clock starts.
      await Promise.all(options.warmup.map((part) => upsert(part.shard, part.data)));
      let rows = 0;
      const driven = await drive(
        {
          writers: options.writers,
          batches: data.length,
          seconds: options.seconds,
          arrivals: options.arrivals,
        },
        (i) => Promise.all(data[i]!.map((part) => upsert(part.shard, part.data))),
        () => {
          rows += options.batchRows;
        },
      );
      return { system: 'lancedb-memwal', driven, rows, countedRows: await table.countRows() };
    } finally {
      await Promise.all(handles.map((h) => h.closeLsmWriters()));
      for (const handle of handles) handle.close();
    }
  });
}

async function withTable<T>(
  lance: Lance,
  schema: unknown,
  fn: (table: LanceTable, db: LanceConnection) => Promise<T>,
): Promise<T> {
  const dir = await benchDir('lancedb');
  const db = await lance.connect(dir);
  try {
    const table = await db.createEmptyTable('bench', schema);
    try {
      return await fn(table, db);
    } finally {
      table.close();
    }
  } finally {
    db.close();
    await emptyBenchDir(dir);
  }
}
