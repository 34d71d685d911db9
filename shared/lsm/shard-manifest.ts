/**
 * The shard manifest: a versioned JSON document per shard (see versioned-document.ts), the
 * only place that says which WAL ranges are sealed into which generations, which
 * generations are committed, how far the WAL cursor has moved and whether the shard is
 * poisoned.
 */
import type { PoisonRecord } from '../shard-poison.ts';
import type { ObjectStore } from '../store/object-store.ts';
import {
  type Change,
  type DocumentKind,
  type HintOptions,
  type UpdateOptions,
  type Versioned,
  VersionedDocuments,
} from '../store/versioned-document.ts';
import { shardManifestKey, shardManifestPrefix } from '../table/paths.ts';

export interface SealedGeneration {
  generation: number;
  /** First and last WAL seq of the generation, inclusive. */
  walFrom: number;
  walTo: number;
  /** Rows and bytes of the WAL entries in the range (before last-write-wins). */
  walRows: number;
  walBytes: number;
  sealedAt: string;
  /**
   * A table-lane generation's members (`packMembers`, from `walFrom - 1`): the entries of its
   * range that hold this shard's rows, and where. Absent in a shard's own lane, where every
   * entry of the range is the shard's; dropped once the generation is committed.
   */
  members?: string;
}

export interface CommittedGeneration extends SealedGeneration {
  path: string;
  /** Rows and bytes of the L0 artifact (after last-write-wins). */
  rows: number;
  bytes: number;
  committedAt: string;
}

export interface ShardManifest extends Versioned {
  formatVersion: 1;
  table: string;
  shard: number;
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
}

/**
 * The committed generations a reader or merge must still take from L0: those above the base
 * watermark, oldest first; those at or below it are in the base (docs/design.md, "Merge").
 */
export function committedAbove(manifest: ShardManifest, watermark: number): CommittedGeneration[] {
  return manifest.committed.filter((c) => c.generation > watermark);
}

/**
 * Whether the manifest still lists every committed generation above `watermark`. GC prunes
 * merged generations from the latest manifest, so one read after an older base manifest
 * may lack generations that base version does not hold yet.
 */
export function listsAllAbove(manifest: ShardManifest, watermark: number): boolean {
  const last = manifest.currentGeneration - 1;
  return last <= watermark || committedAbove(manifest, watermark).length === last - watermark;
}

/** Generations not yet in the base: every sealed one plus the committed ones above the watermark. */
export function pendingGenerations(manifest: ShardManifest, watermark: number): number {
  return manifest.sealed.length + committedAbove(manifest, watermark).length;
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
export type ManifestChange = Change<ShardManifest>;

const KIND: DocumentKind<ShardManifest> = {
  name: 'shard manifest',
  prefix: (id) => {
    const { table, shard } = parseId(id);
    return shardManifestPrefix(table, shard);
  },
  key: (id, version) => {
    const { table, shard } = parseId(id);
    return shardManifestKey(table, shard, version);
  },
  empty: (id) => {
    const { table, shard } = parseId(id);
    return emptyShardManifest(table, shard);
  },
  validate(parsed, version) {
    const manifest = parsed as ShardManifest;
    if (manifest.formatVersion !== 1 || manifest.version !== version) throw new Error('unexpected format');
    return manifest;
  },
};

function documentId(table: string, shard: number): string {
  return `${table}/${shard}`;
}

function parseId(id: string): { table: string; shard: number } {
  const slash = id.lastIndexOf('/');
  return { table: id.slice(0, slash), shard: Number(id.slice(slash + 1)) };
}

/** How recent a version this process saw must be to serve as a guess (`known`). */
const KNOWN_MANIFEST_MS = 2_000;

export class ShardManifestStore {
  private readonly documents: VersionedDocuments<ShardManifest>;

  constructor(store: ObjectStore, hints: HintOptions) {
    this.documents = new VersionedDocuments(store, KIND, hints);
  }

  read(table: string, shard: number, signal?: AbortSignal): Promise<ShardManifest> {
    return this.documents.read(documentId(table, shard), signal);
  }

  /** See VersionedDocuments.update: `mutate` is re-run after every lost race. */
  async update(
    table: string,
    shard: number,
    mutate: (current: ShardManifest) => ManifestChange,
    signal?: AbortSignal,
    options?: UpdateOptions<ShardManifest>,
  ): Promise<{ manifest: ShardManifest; changed: boolean }> {
    const { doc, changed } = await this.documents.update(documentId(table, shard), mutate, signal, options);
    return { manifest: doc, changed };
  }

  /**
   * The latest version this process has seen lately, without a request: a guess to start
   * reads on beside the manifest's read (the seal's listing, the flush's range), never
   * something to decide on. Lately enough that a guess costs a few seals' worth of entries
   * more at most, even where other processes sealed meanwhile.
   */
  known(table: string, shard: number): ShardManifest | undefined {
    return this.documents.known(documentId(table, shard), KNOWN_MANIFEST_MS);
  }

  readVersion(
    table: string,
    shard: number,
    version: number,
    signal?: AbortSignal,
  ): Promise<ShardManifest | null> {
    return this.documents.readVersion(documentId(table, shard), version, signal);
  }

  listVersions(table: string, shard: number, signal?: AbortSignal): Promise<number[]> {
    return this.documents.listVersions(documentId(table, shard), signal);
  }

  listStored(
    table: string,
    shard: number,
    signal?: AbortSignal,
  ): Promise<Array<{ version: number; storedAt: number }>> {
    return this.documents.listStored(documentId(table, shard), signal);
  }

  versionKey(table: string, shard: number, version: number): string {
    return this.documents.key(documentId(table, shard), version);
  }
}
