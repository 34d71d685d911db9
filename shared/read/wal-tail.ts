/**
 * The WAL part of a read's overlay (docs/design.md, "Read"): per shard read, the entries past
 * its cursor that hold its rows, oldest first. On a shard's own lane they are what the shard's
 * listing after its cursor gives. On a table lane (docs/table-wal-lane.md, §5) the listing is
 * made once for the table, after every manifest was read: a shard's sealed range names its
 * entries in its generations' members, and above `sealedThrough` an entry's own sections say
 * whether it holds the shard's rows. An entry that landed after the listing is in no shard's
 * tail, and one listed is in every tail it has a section for, so a read sees a request on every
 * shard it covers or on none (I10, I19).
 */
import type { Table } from 'apache-arrow';
import { SluiceError } from '../errors.ts';
import { unpackMembers } from '../lsm/generation-members.ts';
import type { ShardManifest } from '../lsm/shard-manifest.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { tableWalKey, walKey } from '../table/paths.ts';
import { listLaneAfter, listWalAfter, tableLane } from '../wal/frontier.ts';
import { isHole } from '../wal/wal-entry.ts';
import { splitSections } from '../wal/wal-sections.ts';
import { type CachedTable, derived, type ObjectCache, required } from './object-cache.ts';

/** One entry's rows of one shard. */
export interface TailEntry {
  seq: number;
  /** Names exactly these rows: the entry's key, and on a table lane the shard's section of it. */
  source: string;
  /** The decoded entry the rows are a view of, kept by the cache with what is derived from it. */
  cached: CachedTable;
  rows: Table;
}

export interface WalTailDeps {
  store: ObjectStore;
  cache: ObjectCache;
}

/**
 * A shard's own lane: the entries its listing after the cursor gives (`listed` when pinned),
 * holes left out. `seqs` is what was listed, for a pin.
 */
export async function shardLaneTail(
  deps: WalTailDeps,
  manifest: ShardManifest,
  listed: readonly number[] | undefined,
  signal?: AbortSignal,
): Promise<{ entries: TailEntry[]; seqs: number[] }> {
  const { table, shard } = manifest;
  const seqs =
    listed !== undefined
      ? [...listed]
      : (await listWalAfter(deps.store, table, shard, manifest.walCursor, signal)).map((e) => e.seq);
  const entries = await Promise.all(
    seqs.map(async (seq): Promise<TailEntry | null> => {
      const source = walKey(table, shard, seq);
      const cached = await required(deps.cache, source, signal);
      return isHole(cached.table) ? null : { seq, source, cached, rows: cached.table };
    }),
  );
  return { entries: entries.filter((e) => e !== null), seqs };
}

/**
 * A table lane: one listing after the lowest `sealedThrough` of `manifests` (`listed` when
 * pinned), and of every shard the entries holding its rows. Below a shard's `sealedThrough`
 * its members name them, so the listing need not reach down to the cursor; each entry is read
 * once, whatever the shards it holds.
 */
export async function tableLaneTails(
  deps: WalTailDeps,
  table: string,
  manifests: readonly ShardManifest[],
  listed: readonly number[] | undefined,
  signal?: AbortSignal,
): Promise<{ entries: TailEntry[][]; seqs: number[] }> {
  if (manifests.length === 0) return { entries: [], seqs: [] };
  const after = Math.min(...manifests.map((m) => m.sealedThrough));
  const seqs =
    listed !== undefined
      ? [...listed]
      : (await listLaneAfter(deps.store, tableLane(table), after, signal)).map((e) => e.seq);
  const wanted = manifests.map((m) => ({
    members: membersOf(m),
    unsealed: seqs.filter((seq) => seq > m.sealedThrough),
  }));
  const read = new Set(wanted.flatMap((w) => [...w.members, ...w.unsealed]));
  const decoded = new Map(
    await Promise.all(
      [...read].map(
        async (seq) => [seq, await required(deps.cache, tableWalKey(table, seq), signal)] as const,
      ),
    ),
  );
  const entries = manifests.map((manifest, i) => {
    const { members, unsealed } = wanted[i]!;
    const sealed = members.map((seq) => sectionOf(table, manifest.shard, seq, decoded.get(seq)!, true)!);
    const above = unsealed.map((seq) => sectionOf(table, manifest.shard, seq, decoded.get(seq)!, false));
    return [...sealed, ...above.filter((e) => e !== null)];
  });
  return { entries, seqs };
}

/** The seqs its sealed generations name as holding the shard's rows, ascending. */
function membersOf(manifest: ShardManifest): number[] {
  return manifest.sealed.flatMap((g) => {
    if (g.members === undefined) {
      throw new SluiceError(
        'DATA_CORRUPT',
        `shard ${manifest.shard}'s sealed generation ${g.generation} of a table lane names no members`,
        { table: manifest.table, shard: manifest.shard, generation: g.generation },
      );
    }
    return unpackMembers(g.walFrom - 1, g.members).map((m) => m.seq);
  });
}

/**
 * The shard's rows of the entry, or null when it has none; a member must have them, else the
 * manifest and the entry disagree.
 */
function sectionOf(
  table: string,
  shard: number,
  seq: number,
  cached: CachedTable,
  member: boolean,
): TailEntry | null {
  const key = tableWalKey(table, seq);
  const details = { table, key };
  const sections = derived(cached, 'sections', () => splitSections(cached.table, details));
  if (sections === null) {
    throw new SluiceError('DATA_CORRUPT', `WAL entry ${key} in a table lane has no sections`, details);
  }
  const rows = sections.get(shard);
  if (rows === undefined) {
    if (!member) return null;
    throw new SluiceError('DATA_CORRUPT', `WAL entry ${key} has no section of member shard ${shard}`, {
      ...details,
      shard,
    });
  }
  return { seq, source: `${key}#${shard}`, cached, rows };
}
