/**
 * Sluice's record of a table's base: which Lance version of `tables/{table}/base.lance`
 * holds the merged rows, and how far each shard's L0 generations have been merged into it
 * (`mergedThrough`). Both move together in one compare-and-swap of this document, which is
 * what makes a merge atomic: a Lance version no record names is not part of the table yet
 * (see docs/base-table.md, "The merge watermark").
 */
import { SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import {
  type Change,
  type DocumentKind,
  type HintOptions,
  type Versioned,
  VersionedDocuments,
} from '../store/versioned-document.ts';
import { baseManifestKey, baseManifestPrefix } from '../table/paths.ts';

export interface BaseManifest extends Versioned {
  formatVersion: 2;
  table: string;
  /** The Lance version holding exactly the generations at or below `mergedThrough`; null before the first merge. */
  lanceVersion: number | null;
  /** Per shard, the highest L0 generation merged into the base (0 = none). */
  mergedThrough: Record<string, number>;
  /** Merges recorded since the last optimize: what the sampler weighs to schedule one. */
  mergesSinceOptimize: number;
  /** The table's schema version whose columns the recorded Lance version has; absent means 1. */
  schemaVersion?: number;
  /**
   * Retention (ms since the epoch): the recorded Lance version holds no row whose retention
   * column is below it. Null, or absent in a manifest older than retention: no row deleted.
   */
  expiredBefore?: number | null;
}

export function emptyBaseManifest(table: string): BaseManifest {
  return {
    formatVersion: 2,
    table,
    version: 0,
    commitId: '',
    updatedAt: new Date(0).toISOString(),
    lanceVersion: null,
    mergedThrough: {},
    mergesSinceOptimize: 0,
    expiredBefore: null,
  };
}

export function baseSchemaVersion(base: BaseManifest): number {
  return base.schemaVersion ?? 1;
}

export function expiredBefore(base: BaseManifest): number | null {
  return base.expiredBefore ?? null;
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
    const legacy = parsed as { formatVersion?: unknown; table?: unknown };
    if (legacy.formatVersion === 1) throw outdatedBase(String(legacy.table));
    if (manifest.formatVersion !== 2 || manifest.version !== version) throw new Error('unexpected format');
    return manifest;
  },
};

/**
 * A table whose base is still the sorted runs of an earlier Sluice. Those runs are not
 * rewritten in place: the rows are exported with the earlier version and written again.
 */
function outdatedBase(table: string): SluiceError {
  return new SluiceError(
    'BASE_FORMAT_OUTDATED',
    `the base of table ${table} is in the sorted-run format of an earlier Sluice; ` +
      'scan it with that version (GET /v1/tables/{table}/rows), create a new table and write the rows to it',
    { table },
  );
}

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
