/**
 * What a sealed generation's rows are, for the flush and its read ahead alike: in a shard's
 * own lane, every entry of its WAL range; in a table lane (docs/table-wal-lane.md, §4), the
 * section of this shard of each member entry, by the byte range its seal recorded (read
 * once for every shard where the entry is small, docs/table-wal-lane.md §12), decoded
 * under the schema version that entry was written in. Either way in seq order, and a missing
 * entry is lost data: fail-stop.
 */
import pLimit from 'p-limit';
import { SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableWalKey, walKey } from '../table/paths.ts';
import { schemaAt, type TableDef } from '../table/table-def.ts';
import type { EntryHeads } from '../wal/entry-heads.ts';
import { decodeWalEntry } from '../wal/wal-entry.ts';
import { readSection } from '../wal/wal-sections.ts';
import { unpackMembers } from './generation-members.ts';
import type { WalRows } from './run-keys.ts';
import type { SealedGeneration } from './shard-manifest.ts';

/**
 * WAL objects of a generation read at once. The rows are held whole anyway (a generation is
 * at most `maxGenerationBytes`), so this bounds requests, not memory; on S3 a generation of
 * small entries is then read in one or two request latencies rather than one per eight.
 */
const WAL_READ_CONCURRENCY = 32;

/** Where a flush reads: the store, and this process's heads of table-lane entries (§12). */
export interface GenerationReads {
  store: ObjectStore;
  entryHeads: EntryHeads;
}

/** The rows of `generation` of `shard`, entry by entry in seq order (holes left out). */
export function readGenerationRows(
  reads: GenerationReads,
  table: TableDef,
  shard: number,
  generation: Pick<SealedGeneration, 'walFrom' | 'walTo' | 'members'>,
  signal?: AbortSignal,
): Promise<WalRows[]> {
  if (table.walLane !== 'table') return readWalRange(reads.store, table.name, shard, generation, signal);
  if (generation.members === undefined) {
    // Every table-lane generation is cut from member sections: one without is a corrupt manifest.
    throw new SluiceError(
      'DATA_CORRUPT',
      `a sealed generation of table lane ${table.name} names no members`,
      {
        table: table.name,
        shard,
        walFrom: generation.walFrom,
      },
    );
  }
  return readMembers(reads, table, shard, generation.walFrom, generation.members, signal);
}

/**
 * A table lane's generation: each member's section of this shard, by a range GET of its own,
 * or cut from the entry's head that another shard's flush in this process read (§12).
 */
async function readMembers(
  { store, entryHeads }: GenerationReads,
  table: TableDef,
  shard: number,
  walFrom: number,
  packed: string,
  signal?: AbortSignal,
): Promise<WalRows[]> {
  const limit = pLimit(WAL_READ_CONCURRENCY);
  const members = unpackMembers(walFrom - 1, packed);
  return Promise.all(
    members.map(({ seq, start, end, rows, schemaVersion }) =>
      limit(async () => ({
        seq,
        table: await readSection(
          store,
          tableWalKey(table.name, seq),
          { shard, start, end, rows },
          schemaAt(table, schemaVersion),
          { signal, heads: entryHeads },
        ),
      })),
    ),
  );
}

/** A shard's own lane: every entry of the sealed range. */
export async function readWalRange(
  store: ObjectStore,
  table: string,
  shard: number,
  range: { walFrom: number; walTo: number },
  signal?: AbortSignal,
): Promise<WalRows[]> {
  const limit = pLimit(WAL_READ_CONCURRENCY);
  const seqs = Array.from({ length: range.walTo - range.walFrom + 1 }, (_, i) => range.walFrom + i);
  const entries = await Promise.all(
    seqs.map((seq) =>
      limit(async () => {
        const object = await store.get(walKey(table, shard, seq), { signal });
        if (!object) {
          throw new SluiceError('DATA_MISSING', `sealed WAL entry ${seq} is missing`, { table, shard, seq });
        }
        return decodeWalEntry(object.body, seq);
      }),
    ),
  );
  return entries.flatMap((entry, i) =>
    entry.kind === 'rows' ? [{ seq: seqs[i]!, table: entry.table }] : [],
  );
}
