/**
 * Every object key of docs/design.md, "Object layout", and nothing else, is spelled here — and parsed here.
 * Numbers are zero-padded to 20 digits so that a plain listing returns them in numeric
 * order. Every builder checks its parts (table name, shard, number, file id), so no key
 * can escape its table's prefix or collide with another kind of object.
 *
 * ```
 * tables/{table}/table.json
 * tables/{table}/drain.json          (the durable copy of the drain flag)
 * tables/{table}/wal/{seq:020}.arrow   (the table WAL lane: one entry per write, a section per shard)
 * tables/{table}/shards/{shard}/wal/{seq:020}.arrow
 * tables/{table}/shards/{shard}/gen/{gen:020}.arrow
 * tables/{table}/shards/{shard}/_manifest/{ver:020}.json
 * tables/{table}/base/_manifest/{ver:020}.json
 * tables/{table}/schema/_manifest/{ver:020}.json   (the columns' changes since table.json)
 * tables/{table}/base.lance/…       (the base table: a Lance dataset, laid out by Lance)
 * ```
 */
import { assertTableName } from './table-name.ts';

const WIDTH = 20;
const TABLES = 'tables/';

export function pad(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a valid sequence number: ${n}`);
  return String(n).padStart(WIDTH, '0');
}

function shardSegment(shard: number): string {
  if (!Number.isSafeInteger(shard) || shard < 0) throw new RangeError(`not a valid shard index: ${shard}`);
  return String(shard);
}

export function tablesPrefix(): string {
  return TABLES;
}

export function tablePrefix(table: string): string {
  return `${TABLES}${assertTableName(table)}/`;
}

export function tableConfigKey(table: string): string {
  return `${tablePrefix(table)}table.json`;
}

/** Written only by shared/scheduler/drain.ts; no reader of the data path looks at it. */
/** The indexes declared after the table was created (POST /v1/tables/{t}/indexes). */
export function tableIndexesKey(table: string): string {
  return `${tablePrefix(table)}indexes.json`;
}

export function tableDrainKey(table: string): string {
  return `${tablePrefix(table)}drain.json`;
}

/** A dropped table's marker (table-drops.ts): its presence hides the table; the purge deletes it last. */
export function tableDroppedKey(table: string): string {
  return `${tablePrefix(table)}dropped.json`;
}

/** The table WAL lane (docs/table-wal-lane.md): one seq space for every shard of the table. */
export function tableWalPrefix(table: string): string {
  return `${tablePrefix(table)}wal/`;
}

export function tableWalKey(table: string, seq: number): string {
  return `${tableWalPrefix(table)}${pad(seq)}.arrow`;
}

/** Where every shard of a table keeps its objects. */
export function shardsPrefix(table: string): string {
  return `${tablePrefix(table)}shards/`;
}

export function shardPrefix(table: string, shard: number): string {
  return `${shardsPrefix(table)}${shardSegment(shard)}/`;
}

export function walPrefix(table: string, shard: number): string {
  return `${shardPrefix(table, shard)}wal/`;
}

export function walKey(table: string, shard: number, seq: number): string {
  return `${walPrefix(table, shard)}${pad(seq)}.arrow`;
}

export function generationPrefix(table: string, shard: number): string {
  return `${shardPrefix(table, shard)}gen/`;
}

/** I13: the artifact path is a pure function of (shard, generation). */
export function generationKey(table: string, shard: number, generation: number): string {
  return `${generationPrefix(table, shard)}${pad(generation)}.arrow`;
}

export function shardManifestPrefix(table: string, shard: number): string {
  return `${shardPrefix(table, shard)}_manifest/`;
}

export function shardManifestKey(table: string, shard: number, version: number): string {
  return `${shardManifestPrefix(table, shard)}${pad(version)}.json`;
}

export function baseManifestPrefix(table: string): string {
  return `${tablePrefix(table)}base/_manifest/`;
}

export function baseManifestKey(table: string, version: number): string {
  return `${baseManifestPrefix(table)}${pad(version)}.json`;
}

export function schemaDocumentPrefix(table: string): string {
  return `${tablePrefix(table)}schema/_manifest/`;
}

export function schemaDocumentKey(table: string, version: number): string {
  return `${schemaDocumentPrefix(table)}${pad(version)}.json`;
}

/** A file of the base's Lance dataset, by its path inside the dataset (`_versions/…`, `_transactions/…`). */
export function baseDatasetKey(table: string, path: string): string {
  return `${tablePrefix(table)}base.lance/${path}`;
}

export type ObjectKey =
  | { kind: 'table-config'; table: string }
  | { kind: 'table-drain'; table: string }
  | { kind: 'table-wal'; table: string; seq: number }
  | { kind: 'wal'; table: string; shard: number; seq: number }
  | { kind: 'generation'; table: string; shard: number; generation: number }
  | { kind: 'shard-manifest'; table: string; shard: number; version: number }
  | { kind: 'base-manifest'; table: string; version: number };

const NAME = '([A-Za-z0-9_][A-Za-z0-9._-]{0,127})';
const SHARD = '(0|[1-9][0-9]*)';
const NUMBER = `([0-9]{${WIDTH}})`;
const SHAPES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => ObjectKey | null]> = [
  [new RegExp(`^tables/${NAME}/table\\.json$`), (m) => ({ kind: 'table-config', table: m[1]! })],
  [new RegExp(`^tables/${NAME}/drain\\.json$`), (m) => ({ kind: 'table-drain', table: m[1]! })],
  [
    new RegExp(`^tables/${NAME}/wal/${NUMBER}\\.arrow$`),
    (m) => withNumber(m, (seq) => ({ kind: 'table-wal', table: m[1]!, seq })),
  ],
  [
    new RegExp(`^tables/${NAME}/shards/${SHARD}/wal/${NUMBER}\\.arrow$`),
    (m) => withNumbers(m, (shard, seq) => ({ kind: 'wal', table: m[1]!, shard, seq })),
  ],
  [
    new RegExp(`^tables/${NAME}/shards/${SHARD}/gen/${NUMBER}\\.arrow$`),
    (m) => withNumbers(m, (shard, generation) => ({ kind: 'generation', table: m[1]!, shard, generation })),
  ],
  [
    new RegExp(`^tables/${NAME}/shards/${SHARD}/_manifest/${NUMBER}\\.json$`),
    (m) => withNumbers(m, (shard, version) => ({ kind: 'shard-manifest', table: m[1]!, shard, version })),
  ],
  [
    new RegExp(`^tables/${NAME}/base/_manifest/${NUMBER}\\.json$`),
    (m) => withNumber(m, (version) => ({ kind: 'base-manifest', table: m[1]!, version })),
  ],
];

function safe(digits: string): number | null {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : null;
}

function withNumber(m: RegExpExecArray, make: (n: number) => ObjectKey): ObjectKey | null {
  const n = safe(m[2]!);
  return n === null ? null : make(n);
}

function withNumbers(m: RegExpExecArray, make: (shard: number, n: number) => ObjectKey): ObjectKey | null {
  const shard = safe(m[2]!);
  const n = safe(m[3]!);
  return shard === null || n === null ? null : make(shard, n);
}

/** What a key names, or null when it is not a key of the layout. */
export function parseObjectKey(key: string): ObjectKey | null {
  for (const [pattern, build] of SHAPES) {
    const match = pattern.exec(key);
    if (match) return build(match);
  }
  return null;
}

/** The number in a key ending `/{n:020}.{ext}`, or null when the key has another shape. */
export function numberFromKey(key: string): number | null {
  const match = /\/(\d{20})\.(arrow|json)$/.exec(key);
  return match ? safe(match[1]!) : null;
}
