/**
 * The base table of a table: its sorted runs (fragments), newest first, and how far each
 * shard's L0 generations have been merged into them (`mergedThrough`). A merge's data and
 * its watermarks land in one commit; readers skip L0 generations at or below the watermark.
 *
 * Why sorted runs that shadow older runs, not fragments with deletion files: a merge then
 * writes one new run from the generations it merges and never opens the existing base,
 * so its cost grows with the rows merged, not with the base size (I14). Reads already
 * merge sorted runs newest first (WAL entries and L0 files are runs too), so a key is
 * never visible twice and a delete tombstone keeps hiding older values. The price is read
 * amplification, which the compact job bounds by merging runs in size tiers and dropping
 * tombstones when it rewrites the oldest run.
 */
import type { ObjectStore } from '../store/object-store.ts';
import { baseManifestKey, baseManifestPrefix } from '../table/paths.ts';
import {
  type Change,
  type DocumentKind,
  type HintOptions,
  type Versioned,
  VersionedDocuments,
} from './versioned-document.ts';

export interface BaseRun {
  id: string;
  path: string;
  rows: number;
  bytes: number;
  tombstones: number;
  /** Encoded keys (hex) of the first and last row; null for an empty run. */
  minKey: string | null;
  maxKey: string | null;
  createdAt: string;
}

export interface BaseManifest extends Versioned {
  formatVersion: 1;
  table: string;
  /** Newest first: of runs holding the same key, the first one wins. */
  runs: BaseRun[];
  /** Per shard, the highest L0 generation merged into the runs (0 = none). */
  mergedThrough: Record<string, number>;
  /** Runs a compaction replaced, kept until GC deletes them a grace period after `retiredAt`. */
  retired: Array<{ path: string; retiredAt: string }>;
}

export function emptyBaseManifest(table: string): BaseManifest {
  return {
    formatVersion: 1,
    table,
    version: 0,
    commitId: '',
    updatedAt: new Date(0).toISOString(),
    runs: [],
    mergedThrough: {},
    retired: [],
  };
}

export function mergedThrough(base: BaseManifest, shard: number): number {
  return base.mergedThrough[String(shard)] ?? 0;
}

const KIND: DocumentKind<BaseManifest> = {
  name: 'base manifest',
  prefix: baseManifestPrefix,
  key: baseManifestKey,
  empty: emptyBaseManifest,
  validate(parsed, version) {
    const manifest = parsed as BaseManifest;
    if (manifest.formatVersion !== 1 || manifest.version !== version || !Array.isArray(manifest.runs)) {
      throw new Error('unexpected format');
    }
    return manifest;
  },
};

export class BaseManifestStore {
  private readonly documents: VersionedDocuments<BaseManifest>;

  constructor(store: ObjectStore, hints: HintOptions) {
    this.documents = new VersionedDocuments(store, KIND, hints);
  }

  read(table: string, signal?: AbortSignal): Promise<BaseManifest> {
    return this.documents.read(table, signal);
  }

  async update(
    table: string,
    mutate: (current: BaseManifest) => Change<BaseManifest>,
    signal?: AbortSignal,
  ): Promise<{ manifest: BaseManifest; changed: boolean }> {
    const { doc, changed } = await this.documents.update(table, mutate, signal);
    return { manifest: doc, changed };
  }

  readVersion(table: string, version: number, signal?: AbortSignal): Promise<BaseManifest | null> {
    return this.documents.readVersion(table, version, signal);
  }

  listVersions(table: string, signal?: AbortSignal): Promise<number[]> {
    return this.documents.listVersions(table, signal);
  }

  listStored(table: string, signal?: AbortSignal): Promise<Array<{ version: number; storedAt: number }>> {
    return this.documents.listStored(table, signal);
  }

  versionKey(table: string, version: number): string {
    return this.documents.key(table, version);
  }
}
