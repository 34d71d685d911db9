/**
 * A table-lane WAL entry (docs/table-wal-lane.md, §2) holds a write group's rows of every
 * shard in one Arrow IPC file: its record batches grouped into one section per shard, in
 * shard order, and `sluice.sections` in its schema metadata naming each section's batches.
 * A shard's seal and flush read only their own section, by the byte range the file's own
 * footer gives, and decode it as a stream behind the WAL schema of the entry's schema
 * version. Any Arrow reader still opens the whole file, as `decodeWalEntry` does.
 */
import { randomUUID } from 'node:crypto';
import { type Field, type RecordBatch, Table, tableFromIPC } from 'apache-arrow';
import {
  asStream,
  fileFooter,
  type MessageSpan,
  schemaMessage,
  streamMessages,
} from '../arrow/ipc-framing.ts';
import type { TableSchema } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import type { EntrySection } from '../redis/lane-sections.ts';
import type { ObjectStore, OpOptions } from '../store/object-store.ts';
import { type EntryHeads, readEntryRange } from './entry-heads.ts';
import {
  encodeEntryFile,
  entryIdIn,
  isHole,
  schemaVersionOf,
  type WalWrite,
  walBatches,
  walSchema,
  writeRows,
} from './wal-entry.ts';

/** `[[shard, firstBatch, batchCount, rows], …]`, known before the file is encoded. */
const SECTIONS_KEY = 'sluice.sections';
/**
 * Read from an entry's end first. Past the schema, a footer holds 24 bytes per record batch
 * and some 20 per section, so only an entry of thousands of batches needs a second GET.
 */
const FOOTER_READ_BYTES = 64 * 1024;

/** What an entry's footer says of it; `sections` is null for a shard lane's entry. */
export type EntryFooter =
  | { kind: 'hole' }
  | { kind: 'entry'; entryId: string | null; schemaVersion: number; sections: EntrySection[] | null };

/** The footer starts before the bytes given: read the entry from `from` and parse again. */
export type ShortTail = { kind: 'short'; from: number };

type SectionLayout = [shard: number, firstBatch: number, batchCount: number, rows: number];

/**
 * The entry of a group's writes, by shard; a shard with no rows gets no section. The writes
 * of every shard become batches together (`walBatches`): gathered into one batch (small
 * writes, and rows named by index), of which each section is a slice, since Arrow JS builds
 * each record batch slowly; or large whole writes a batch each, of which each section takes
 * its own.
 */
export function encodeSectionedEntry(
  schema: TableSchema,
  writesByShard: ReadonlyMap<number, readonly WalWrite[]>,
  entryId: string = randomUUID(),
): { body: Uint8Array; sections: EntrySection[]; schemaVersion: number } {
  const shards: SectionWrites[] = [];
  const ordered: WalWrite[] = [];
  for (const shard of [...writesByShard.keys()].sort((a, b) => a - b)) {
    if (!Number.isSafeInteger(shard) || shard < 0) throw new RangeError(`not a valid shard index: ${shard}`);
    const writes = writesByShard.get(shard)!.filter((w) => writeRows(w) > 0);
    if (writes.length === 0) continue;
    shards.push({ shard, writes: writes.length, rows: writes.reduce((sum, w) => sum + writeRows(w), 0) });
    ordered.push(...writes);
  }
  const { batches, layout } = sectionBatches(walBatches(schema, ordered), shards);
  const body = encodeEntryFile(schema, batches, entryId, [[SECTIONS_KEY, JSON.stringify(layout)]]);
  const footer = fileFooter(body, body.length);
  if (footer.kind !== 'footer') {
    throw new SluiceError('INTERNAL', `a WAL entry just encoded has no readable footer`, { entryId });
  }
  return { body, sections: sectionsOf(layout, footer.recordBatches), schemaVersion: schema.version };
}

/** A shard's writes in an entry: how many, and their rows. */
interface SectionWrites {
  shard: number;
  writes: number;
  rows: number;
}

/**
 * Each section's batches, from the WAL batches of every section's writes in turn: either one
 * batch of all their rows, which each section takes a slice of, or a batch per write, which
 * each section takes its own run of.
 */
function sectionBatches(
  all: readonly RecordBatch[],
  shards: readonly SectionWrites[],
): { batches: RecordBatch[]; layout: SectionLayout[] } {
  const writes = shards.reduce((sum, s) => sum + s.writes, 0);
  const gathered = all.length === 1 && writes > 1 ? all[0]! : null;
  const batches: RecordBatch[] = [];
  const layout: SectionLayout[] = [];
  let at = 0;
  for (const { shard, writes: count, rows } of shards) {
    const own = gathered ? [gathered.slice(at, at + rows)] : all.slice(at, at + count);
    at += gathered ? rows : count;
    layout.push([shard, batches.length, own.length, rows]);
    batches.push(...own);
  }
  return { batches, layout };
}

function sectionsOf(layout: readonly SectionLayout[], spans: readonly MessageSpan[]): EntrySection[] {
  return layout.map(([shard, first, count, rows]) => ({
    shard,
    start: spans[first]!.start,
    end: spans[first + count - 1]!.end,
    rows,
  }));
}

/** An entry's footer from its last bytes `tail` (at most the whole entry of `size` bytes). */
export function parseEntryFooter(tail: Uint8Array, size: number): EntryFooter | ShortTail {
  return footerOf(tail, size, {});
}

function footerOf(tail: Uint8Array, size: number, details: Record<string, unknown>): EntryFooter | ShortTail {
  const footer = fileFooter(tail, size);
  if (footer.kind === 'short') return footer;
  if (footer.kind === 'bad') throw corrupt(`WAL entry has no Arrow file footer: ${footer.problem}`, details);
  if (isHole(footer)) return { kind: 'hole' };
  const raw = footer.schema.metadata.get(SECTIONS_KEY);
  const layout = raw === undefined ? null : layoutIn(raw, footer.recordBatches.length, details);
  return {
    kind: 'entry',
    entryId: entryIdIn(footer),
    schemaVersion: schemaVersionOf(footer),
    sections: layout && sectionsOf(layout, footer.recordBatches),
  };
}

function layoutIn(raw: string, batchCount: number, details: Record<string, unknown>): SectionLayout[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw corrupt(`WAL entry's ${SECTIONS_KEY} is not JSON`, details);
  }
  const problem = layoutProblem(parsed, batchCount);
  if (problem) throw corrupt(`WAL entry's ${SECTIONS_KEY} ${problem}`, details);
  return parsed as SectionLayout[];
}

/**
 * What is wrong with a section layout, or null: sections must be in ascending shard order,
 * and their batches, none empty, the file's `batchCount` batches in turn.
 */
function layoutProblem(layout: unknown, batchCount: number): string | null {
  if (!Array.isArray(layout)) return 'is not a list';
  let nextBatch = 0;
  let lastShard = -1;
  for (const section of layout as unknown[]) {
    const fits =
      Array.isArray(section) &&
      section.length === 4 &&
      section.every((n) => Number.isSafeInteger(n) && n >= 0) &&
      section[0] > lastShard &&
      section[1] === nextBatch &&
      section[2] > 0 &&
      section[3] > 0;
    if (!fits) return `has a section ${JSON.stringify(section)} out of place`;
    lastShard = section[0];
    nextBatch += section[2];
  }
  return nextBatch === batchCount ? null : `names ${nextBatch} batches of the file's ${batchCount}`;
}

/**
 * The footer of the entry at `key`, `size` bytes as listed: one range GET of its last
 * 64 KiB, and a second when the footer is longer. Null when the object is gone.
 */
export async function readEntryFooter(
  store: ObjectStore,
  key: string,
  size: number,
  options: OpOptions = {},
): Promise<EntryFooter | null> {
  const details = { key };
  const from = Math.max(0, size - FOOTER_READ_BYTES);
  const tail = await store.get(key, { range: { start: from, end: size }, signal: options.signal });
  if (!tail) return null;
  if (tail.meta.size !== size) {
    throw corrupt(`WAL entry is ${tail.meta.size} bytes, listed as ${size}`, details);
  }
  const first = footerOf(tail.body, size, details);
  if (first.kind !== 'short') return first;
  const head = await store.get(key, { range: { start: first.from, end: from }, signal: options.signal });
  if (!head) return null;
  const footer = footerOf(concat(head.body, tail.body), size, details);
  if (footer.kind === 'short') throw corrupt('WAL entry changed between the reads of its footer', details);
  return footer;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * The rows of a whole decoded entry, by shard, as its `sluice.sections` lays its batches out:
 * a read GETs an entry once for every shard it holds rows of. Null for a shard lane's entry,
 * which has no sections; a hole has none either.
 */
export function splitSections(
  entry: Table,
  details: Record<string, unknown> = {},
): Map<number, Table> | null {
  if (isHole(entry)) return new Map();
  const raw = entry.schema.metadata.get(SECTIONS_KEY);
  if (raw === undefined) return null;
  const sections = new Map<number, Table>();
  for (const [shard, first, count, rows] of layoutIn(raw, entry.batches.length, details)) {
    const rowsOf = new Table(entry.schema, entry.batches.slice(first, first + count));
    if (rowsOf.numRows !== rows) {
      throw corrupt(`shard ${shard}'s section holds ${rowsOf.numRows} rows, not ${rows}`, {
        ...details,
        shard,
      });
    }
    sections.set(shard, rowsOf);
  }
  return sections;
}

/** The head of every section's stream, and the field nodes each of its record batches must have. */
interface SectionShape {
  head: Uint8Array;
  nodes: number;
}

const sectionShapes = new WeakMap<TableSchema, SectionShape>();

/** Encoded once per schema, as `walSchema` is built once. */
function sectionShape(schema: TableSchema): SectionShape {
  const cached = sectionShapes.get(schema);
  if (cached) return cached;
  const wal = walSchema(schema);
  const built = { head: schemaMessage(wal), nodes: fieldNodes(wal.fields) };
  sectionShapes.set(schema, built);
  return built;
}

/** A record batch has one field node per field, nested ones included (the Arrow IPC format). */
function fieldNodes(fields: readonly Field[]): number {
  return fields.reduce((n, field) => n + 1 + fieldNodes(field.type.children ?? []), 0);
}

/**
 * A section's rows from its bytes alone. `schema` is the table's schema at the entry's
 * version (its footer's `schemaVersion`): the section's messages have no schema of their own.
 */
export function decodeSection(schema: TableSchema, bytes: Uint8Array): Table {
  return sectionTable(schema, bytes, {});
}

function sectionTable(schema: TableSchema, bytes: Uint8Array, details: Record<string, unknown>): Table {
  const shape = sectionShape(schema);
  const stream = asStream(shape.head, bytes);
  const { messages, problem } = streamMessages(stream);
  if (problem) throw corrupt(`WAL section is not whole IPC messages: ${problem}`, details);
  // Arrow JS reads a batch's buffers by the schema it is given, unchecked: under another
  // schema version with a column more or fewer it would return other columns' values as
  // rows. A widened column keeps the count, so only the footer's version is ever safe.
  const misfit = messages
    .slice(1)
    .findIndex((m) => !m.isRecordBatch() || m.header().nodes.length !== shape.nodes);
  if (misfit >= 0) {
    throw corrupt(`WAL section message ${misfit} is not a record batch of schema version ${schema.version}`, {
      ...details,
      schemaVersion: schema.version,
    });
  }
  try {
    return tableFromIPC(stream);
  } catch (err) {
    throw new SluiceError('DATA_CORRUPT', `WAL section does not decode: ${String(err)}`, details, {
      cause: err,
    });
  }
}

/**
 * One section of the entry at `key`: by one range GET, or cut from the entry's head when
 * `heads` keeps heads for this process's flushes (entry-heads.ts). A missing entry is lost
 * data, as in a flush's read of a sealed range; bytes or rows other than the section's are
 * corruption.
 */
export async function readSection(
  store: ObjectStore,
  key: string,
  section: EntrySection,
  schema: TableSchema,
  options: OpOptions & { heads?: EntryHeads } = {},
): Promise<Table> {
  const details = { key, shard: section.shard };
  const range = { start: section.start, end: section.end };
  const { heads, signal } = options;
  const read = heads
    ? await heads.read(store, key, range, signal)
    : await readEntryRange(store, key, range, signal);
  if (!read) throw new SluiceError('DATA_MISSING', `WAL entry ${key} is missing`, details);
  if (read.body.length !== section.end - section.start) {
    throw corrupt(`WAL entry ${key} is ${read.size} bytes, short of its section's end`, details);
  }
  const table = sectionTable(schema, read.body, details);
  if (table.numRows !== section.rows) {
    throw corrupt(
      `shard ${section.shard} of ${key} holds ${table.numRows} rows, not ${section.rows}`,
      details,
    );
  }
  return table;
}

function corrupt(message: string, details: Record<string, unknown>): SluiceError {
  return new SluiceError('DATA_CORRUPT', message, details);
}
