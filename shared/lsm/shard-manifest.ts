/**
 * The shard manifest: a versioned JSON document per shard, the only place that says which
 * WAL ranges are sealed into which generations, which generations are committed, how far
 * the WAL cursor has moved and whether the shard is poisoned.
 *
 * A commit is a put-if-absent of version + 1. Whoever loses the race re-reads and decides
 * again, so no lock or queue is trusted for correctness. Version 0 is the implicit empty
 * manifest of a shard nobody has written to; it is never stored.
 */
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '../errors.ts';
import { isSluiceError, SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { numberFromKey, shardManifestKey, shardManifestPrefix } from '../table/paths.ts';

export interface SealedGeneration {
  generation: number;
  /** First and last WAL seq of the generation, inclusive. */
  walFrom: number;
  walTo: number;
  /** Rows and bytes of the WAL entries in the range (before last-write-wins). */
  walRows: number;
  walBytes: number;
  sealedAt: string;
}

export interface CommittedGeneration extends SealedGeneration {
  path: string;
  /** Rows and bytes of the L0 artifact (after last-write-wins). */
  rows: number;
  bytes: number;
  committedAt: string;
}

export interface PoisonRecord {
  code: ErrorCode;
  generation: number | null;
  cause: string;
  at: string;
  jobId?: string;
}

export interface ShardManifest {
  formatVersion: 1;
  table: string;
  shard: number;
  version: number;
  /** Unique per version, so a writer can recognise its own commit after a lost answer (I13). */
  commitId: string;
  /** The only generation the next flush commit may commit (I3). */
  currentGeneration: number;
  /** The number the next sealed generation gets. */
  nextGeneration: number;
  /** I4: every WAL entry at or below the cursor is in a committed generation. */
  walCursor: number;
  /** Highest WAL seq that belongs to a sealed generation. */
  sealedThrough: number;
  sealed: SealedGeneration[];
  committed: CommittedGeneration[];
  poison: PoisonRecord | null;
  updatedAt: string;
}

export function emptyShardManifest(table: string, shard: number): ShardManifest {
  return {
    formatVersion: 1,
    table,
    shard,
    version: 0,
    commitId: '',
    currentGeneration: 1,
    nextGeneration: 1,
    walCursor: 0,
    sealedThrough: 0,
    sealed: [],
    committed: [],
    poison: null,
    updatedAt: new Date(0).toISOString(),
  };
}

/** What a mutation decided: a new manifest to commit, or nothing to do. */
export type ManifestChange = ShardManifest | null;

const MAX_COMMIT_ATTEMPTS = 64;

export class ShardManifestStore {
  /** Latest version seen per shard: where the forward probe starts, instead of a listing. */
  private readonly hints = new Map<string, number>();
  /** Versions are immutable, so a parsed version can be kept for as long as it is the latest seen. */
  private readonly latest = new Map<string, ShardManifest>();

  constructor(private readonly store: ObjectStore) {}

  async read(table: string, shard: number, signal?: AbortSignal): Promise<ShardManifest> {
    const id = `${table}/${shard}`;
    let manifest = this.latest.get(id) ?? (await this.readFromHint(table, shard, signal));
    for (;;) {
      const next = await this.readVersion(table, shard, manifest.version + 1, signal);
      if (!next) break;
      manifest = next;
    }
    this.remember(id, manifest);
    return manifest;
  }

  /**
   * Applies `mutate` to the latest manifest and commits the result as the next version,
   * re-reading and re-deciding whenever another writer committed first. `mutate` must be a
   * pure decision on the manifest it is given: it runs again after every lost race.
   */
  async update(
    table: string,
    shard: number,
    mutate: (current: ShardManifest) => ManifestChange,
    signal?: AbortSignal,
  ): Promise<{ manifest: ShardManifest; changed: boolean }> {
    for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
      const current = await this.read(table, shard, signal);
      const decided = mutate(current);
      if (!decided) return { manifest: current, changed: false };
      const next: ShardManifest = {
        ...decided,
        version: current.version + 1,
        commitId: randomUUID(),
        updatedAt: new Date().toISOString(),
      };
      if (await this.tryCommit(next, signal)) {
        this.remember(`${table}/${shard}`, next);
        return { manifest: next, changed: true };
      }
    }
    throw new SluiceError('STORE_CONFLICT', 'shard manifest commit kept losing races', { table, shard });
  }

  /** True when `next` is now the committed version; false when another writer took the number. */
  private async tryCommit(next: ShardManifest, signal?: AbortSignal): Promise<boolean> {
    const key = shardManifestKey(next.table, next.shard, next.version);
    try {
      await this.store.putIfAbsent(key, encode(next), { signal });
      return true;
    } catch (err) {
      if (isSluiceError(err, 'PRECONDITION_FAILED')) return false;
      // I13: the put may have landed and only its answer been lost; the store says which.
      const landed = await this.readVersion(next.table, next.shard, next.version, signal).catch(() => {
        throw err;
      });
      if (landed?.commitId === next.commitId) return true;
      if (landed) return false;
      throw err;
    }
  }

  private async readFromHint(table: string, shard: number, signal?: AbortSignal): Promise<ShardManifest> {
    const hint = this.hints.get(`${table}/${shard}`) ?? 0;
    if (hint > 0) {
      const hinted = await this.readVersion(table, shard, hint, signal);
      if (hinted) return hinted;
    }
    const listed = await this.latestListedVersion(table, shard, signal);
    if (listed === 0) return emptyShardManifest(table, shard);
    const manifest = await this.readVersion(table, shard, listed, signal);
    if (!manifest) {
      throw new SluiceError('DATA_MISSING', 'listed shard manifest version disappeared', {
        table,
        shard,
        version: listed,
      });
    }
    return manifest;
  }

  private async latestListedVersion(table: string, shard: number, signal?: AbortSignal): Promise<number> {
    let latest = 0;
    for await (const page of this.store.list(shardManifestPrefix(table, shard), { signal })) {
      for (const meta of page) latest = Math.max(latest, numberFromKey(meta.key) ?? 0);
    }
    return latest;
  }

  private async readVersion(
    table: string,
    shard: number,
    version: number,
    signal?: AbortSignal,
  ): Promise<ShardManifest | null> {
    const object = await this.store.get(shardManifestKey(table, shard, version), { signal });
    if (!object) return null;
    return decode(object.body, table, shard, version);
  }

  private remember(id: string, manifest: ShardManifest): void {
    if (manifest.version >= (this.hints.get(id) ?? 0)) {
      this.hints.set(id, manifest.version);
      this.latest.set(id, manifest);
    }
  }
}

function encode(manifest: ShardManifest): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(manifest, null, 1)}\n`);
}

function decode(body: Uint8Array, table: string, shard: number, version: number): ShardManifest {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as ShardManifest;
    if (parsed.formatVersion !== 1 || parsed.version !== version) throw new Error('unexpected format');
    return parsed;
  } catch (err) {
    throw new SluiceError('DATA_CORRUPT', 'shard manifest cannot be read', { table, shard, version }, { cause: err });
  }
}
