/**
 * LanceDB 0.31 as the write bench's baselines, from the workspace package `@sluice/lance`
 * (LanceDB with the CommonJS Arrow it was built for), to a local directory or to a prefix
 * on the bench's S3 endpoint (`LanceHome`). Its local file system does not fsync, so none
 * of its acks on a local directory is durable; on S3 an ack waits for the endpoint's answer
 * to its PUTs. Its MemWAL writer ignores the connection's storage options and reaches S3
 * through the `AWS_*` environment (`lanceS3Environment`), which the bench sets once for its
 * one endpoint.
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
import { lanceS3Options } from '../../shared/base/dataset-location.ts';
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
  lancedb: {
    connect(uri: string, options?: { storageOptions?: Record<string, string> }): Promise<LanceConnection>;
  };
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

  connect(home: LanceHome): Promise<LanceConnection> {
    return this.lance.lancedb.connect(home.uri, { storageOptions: home.storageOptions });
  }
}

/** Where a baseline's table lives: a directory, or `s3://bucket/prefix` with its storage options. */
export interface LanceHome {
  uri: string;
  storageOptions: Record<string, string>;
  /** Frees what the table wrote (truncated files, a purged prefix). */
  release(): Promise<void>;
}

/** A fresh local directory. */
export async function localLanceHome(): Promise<LanceHome> {
  const dir = await benchDir('lancedb');
  return { uri: dir, storageOptions: {}, release: () => emptyBenchDir(dir) };
}

export interface LanceS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Storage options for a LanceDB connection to an S3-compatible endpoint, path-style, as the base's are. */
export function lanceStorageOptions(s3: LanceS3): Record<string, string> {
  return lanceS3Options({ ...s3, forcePathStyle: true });
}

/**
 * What Lance's MemWAL shard writer needs in the process environment, since it ignores the
 * storage options (LanceDB 0.31; a connection's options reach its tables, not the MemWAL's
 * writer): Rust object_store's `AmazonS3Builder::from_env` names (path-style requests are its
 * default).
 */
export function lanceS3Environment(s3: LanceS3): Record<string, string> {
  return {
    AWS_ENDPOINT: s3.endpoint,
    AWS_ALLOW_HTTP: String(s3.endpoint.startsWith('http://')),
    AWS_REGION: s3.region,
    AWS_DEFAULT_REGION: s3.region,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
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
  /**
   * Writes out what the writers still hold in memory: the MemWAL's memtables, flushed as
   * generations by closing its shard writers (its own L0); nothing for `table.add`.
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface LanceRunOptions {
  writers: number;
  arrivals: Arrivals;
  batchRows: number;
  schema: unknown;
  home: LanceHome;
}

export async function openLanceAdd(
  lance: Lance,
  data: readonly unknown[],
  adds: 'concurrent' | 'serial',
  options: LanceRunOptions & { warmup: unknown },
): Promise<LanceContender> {
  const { table, close } = await openTable(lance, options.schema, options.home);
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
  const done = { flush: async () => undefined, close };
  return contender(system, data.length, options, add, () => table.countRows(), done);
}

export async function openLanceMemwal(
  lance: Lance,
  data: readonly ShardedBatch[],
  shards: number,
  options: LanceRunOptions & { warmup: ShardedBatch },
): Promise<LanceContender> {
  const { table, db, close } = await openTable(lance, options.schema, options.home);
  const handles: LanceTable[] = [];
  let flushed = false;
  const flush = async () => {
    if (flushed) return;
    flushed = true;
    await Promise.all(handles.map((h) => h.closeLsmWriters()));
  };
  const closeAll = async () => {
    try {
      await flush();
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
  const done = { flush, close: closeAll };
  return contender('lancedb-memwal', data.length, options, write, () => table.countRows(), done);
}

function contender(
  system: LanceSystem,
  batches: number,
  options: LanceRunOptions,
  write: (batch: number) => Promise<unknown>,
  countRows: () => Promise<number>,
  done: { flush(): Promise<void>; close(): Promise<void> },
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
    flush: done.flush,
    close: done.close,
  };
}

async function openTable(
  lance: Lance,
  schema: unknown,
  home: LanceHome,
): Promise<{ table: LanceTable; db: LanceConnection; close(): Promise<void> }> {
  let db: LanceConnection;
  try {
    db = await lance.connect(home);
  } catch (err) {
    await home.release();
    throw err;
  }
  const closeDb = async () => {
    try {
      db.close();
    } finally {
      await home.release();
    }
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
