/**
 * What of a shard's WAL is past its sealed range, for its stats: where its frontier stands,
 * and the entries and bytes that hold its rows. On a shard's own lane every listed entry is
 * the shard's. On a table lane (docs/table-wal-lane.md, §5) the lane is listed once for every
 * shard asked, the frontier is the lane's, and an entry counts for a shard, with its section's
 * bytes, only when it has a section for it: the sections come from Redis, else from footers.
 */

import type { ShardManifest } from '../lsm/shard-manifest.ts';
import type { LaneSealCounters } from '../redis/lane-seal-counters.ts';
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { listLaneAfter, listWalAfter, missingSeqs, tableLane, type WalObject } from '../wal/frontier.ts';
import { laneEntrySections } from '../wal/lane-entry-sections.ts';

export interface Unsealed {
  /** Highest seq such that every seq past `sealedThrough` through it is present. */
  frontier: number;
  entries: number;
  bytes: number;
}

export interface UnsealedDeps {
  store: ObjectStore;
  laneSealCounters: LaneSealCounters;
}

/** Of each of `manifests`, in order, what its WAL holds past its `sealedThrough`. */
export async function unsealedOf(
  deps: UnsealedDeps,
  table: TableDef,
  manifests: readonly ShardManifest[],
  signal?: AbortSignal,
): Promise<Unsealed[]> {
  if (table.walLane !== 'table') {
    return Promise.all(
      manifests.map(async (m) => {
        const listed = await listWalAfter(deps.store, table.name, m.shard, m.sealedThrough, signal);
        return {
          frontier: frontierOf(m.sealedThrough, listed),
          entries: listed.length,
          bytes: sizeOf(listed),
        };
      }),
    );
  }
  if (manifests.length === 0) return [];
  const after = Math.min(...manifests.map((m) => m.sealedThrough));
  const listed = await listLaneAfter(deps.store, tableLane(table.name), after, signal);
  const sections = await laneEntrySections(deps, table.name, listed, signal);
  return manifests.map((m) => {
    const own = sections.flatMap(({ seq, entry }) =>
      seq > m.sealedThrough ? (entry?.sections.filter((s) => s.shard === m.shard) ?? []) : [],
    );
    return {
      frontier: frontierOf(
        m.sealedThrough,
        listed.filter((o) => o.seq > m.sealedThrough),
      ),
      entries: own.length,
      bytes: own.reduce((sum, s) => sum + s.end - s.start, 0),
    };
  });
}

function frontierOf(sealedThrough: number, listed: readonly WalObject[]): number {
  const firstMissing = missingSeqs(sealedThrough, [...listed])[0];
  return firstMissing !== undefined ? firstMissing - 1 : (listed.at(-1)?.seq ?? sealedThrough);
}

function sizeOf(listed: readonly WalObject[]): number {
  return listed.reduce((sum, e) => sum + e.bytes, 0);
}
