/**
 * A versioned JSON document on the object store — how every manifest in Sluice is kept.
 * Version n lives at its own key (see paths.ts); a commit is a put-if-absent of version n+1,
 * and whoever loses the race re-reads and decides again, so no lock or queue is trusted
 * for correctness. Version 0 is the implicit empty document; it is never stored.
 *
 * Finding the latest version does not list every version: the last version seen is a
 * hint, and reading probes forward from it (one GET of the next number, then rounds of GETs
 * side by side while it finds newer ones). A listing is the fallback when there is no usable
 * hint.
 */
import { randomUUID } from 'node:crypto';
import { isSluiceError, SluiceError } from '../errors.ts';
import { numberFromKey } from '../table/paths.ts';
import type { ObjectStore } from './object-store.ts';

export interface Versioned {
  version: number;
  /** Unique per version, so a writer can recognise its own commit after a lost answer (I13). */
  commitId: string;
  updatedAt: string;
}

export interface DocumentKind<T extends Versioned> {
  /** For errors and logs: "shard manifest", "base manifest". */
  name: string;
  /** The directory of the versions, ending in '/'. */
  prefix(id: string): string;
  /** The key of one version. */
  key(id: string, version: number): string;
  empty(id: string): T;
  /** Checks a parsed document; throws when it is not a document of this kind. */
  validate(parsed: unknown, version: number): T;
}

export interface UpdateOptions<T> {
  /** A read of the document (or one under way) that began at `readAt` (`Date.now()`). */
  from?: { doc: T | Promise<T>; readAt: number };
}

/** What a mutation decided: a new document to commit, or nothing to do. */
export type Change<T> = T | null;

const MAX_COMMIT_ATTEMPTS = 64;
/** The most versions a read probes side by side in one round. */
const MAX_PROBES = 16;

export interface HintOptions {
  /**
   * How long the latest version seen may serve as the start of the forward probe. GC
   * deletes only versions older than its grace period, which must be at least twice this:
   * then a hint younger than this can never point below a deleted version, whose number a
   * put-if-absent would otherwise happily reuse.
   */
  maxHintAgeMs: number;
}

/** The hint age that keeps reads and commits safe beside a GC of the given grace period. */
export function hintsFor(gcGraceMs: number): HintOptions {
  return { maxHintAgeMs: Math.min(30_000, gcGraceMs / 2) };
}

export class VersionedDocuments<T extends Versioned> {
  /** Versions are immutable, so the latest one seen can be kept and probed forward from. */
  private readonly latest = new Map<string, { doc: T; seenAt: number }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly kind: DocumentKind<T>,
    private readonly hints: HintOptions,
  ) {}

  /**
   * The latest version: every version committed before the call is seen. From the hint it
   * probes forward, one GET when the hint is the latest and two when it is one behind; while
   * probes find newer versions, the next go side by side in rounds that double (up to
   * `MAX_PROBES`), so a reader n versions behind waits for about log2(n) rounds, not for n
   * GETs one after another (on S3, a writer's floor read after a few seconds' pause walked
   * a second of manifest versions on its ack path). Versions are numbered without gaps and each exists from its commit until
   * GC removes it a grace later, so every version committed before the read began answers its
   * probe, and the highest one found is at least that new.
   */
  async read(id: string, signal?: AbortSignal): Promise<T> {
    let doc = this.freshHint(id) ?? (await this.readByListing(id, signal));
    for (let round = 0; ; round++) {
      const probes = Math.min(2 ** Math.max(0, round - 1), MAX_PROBES);
      const from = doc.version + 1;
      const found = await Promise.all(
        Array.from({ length: probes }, (_, i) => this.readVersion(id, from + i, signal)),
      );
      doc = found.findLast((next) => next !== null) ?? doc;
      if (found.includes(null)) break;
    }
    this.remember(id, doc);
    return doc;
  }

  /** The document as it was at `version`, or null when that version does not exist (any more). */
  readVersion(id: string, version: number, signal?: AbortSignal): Promise<T | null> {
    return this.store
      .get(this.key(id, version), { signal })
      .then((object) => (object ? this.decode(id, object.body, version) : null));
  }

  /**
   * Applies `mutate` to the latest version and commits the result as the next one,
   * re-reading and re-deciding whenever another writer committed first. `mutate` must be
   * a pure decision on the document it is given: it runs again after every lost race.
   * `from` is a read the caller made already: the first decision is taken on it without
   * reading again, and should it not be the latest any more the put of its successor fails
   * like any lost race.
   */
  async update(
    id: string,
    mutate: (current: T) => Change<T>,
    signal?: AbortSignal,
    options: UpdateOptions<T> = {},
  ): Promise<{ doc: T; changed: boolean }> {
    for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt++) {
      const given = attempt === 0 ? options.from : undefined;
      const readAt = given?.readAt ?? Date.now();
      const current = given ? await given.doc : await this.read(id, signal);
      const decided = mutate(current);
      if (!decided) return { doc: current, changed: false };
      if (Date.now() - readAt > this.hints.maxHintAgeMs) {
        // Stalled past the hint age: GC may have deleted the versions after the one read, so its
        // successor's number could be free again. Decide anew on a listing.
        this.latest.delete(id);
        continue;
      }
      const next: T = {
        ...decided,
        version: current.version + 1,
        commitId: randomUUID(),
        updatedAt: new Date().toISOString(),
      };
      if (await this.tryCommit(id, next, signal)) {
        this.remember(id, next);
        return { doc: next, changed: true };
      }
    }
    throw new SluiceError('STORE_CONFLICT', `${this.kind.name} commit kept losing races`, { id });
  }

  /** Numbers of the stored versions, ascending. */
  async listVersions(id: string, signal?: AbortSignal): Promise<number[]> {
    return (await this.listStored(id, signal)).map((v) => v.version);
  }

  /** The stored versions, ascending, with the time the store took each one. */
  async listStored(id: string, signal?: AbortSignal): Promise<Array<{ version: number; storedAt: number }>> {
    const versions: Array<{ version: number; storedAt: number }> = [];
    for await (const page of this.store.list(this.kind.prefix(id), { signal })) {
      for (const meta of page) {
        const version = numberFromKey(meta.key);
        if (version !== null) versions.push({ version, storedAt: meta.lastModified.getTime() });
      }
    }
    return versions.sort((a, b) => a.version - b.version);
  }

  key(id: string, version: number): string {
    return this.kind.key(id, version);
  }

  /** The latest version this process has seen within `maxAgeMs` (and the hint age); no request is made. */
  known(id: string, maxAgeMs: number): T | undefined {
    const hint = this.latest.get(id);
    const age = hint ? Date.now() - hint.seenAt : Number.POSITIVE_INFINITY;
    return age < Math.min(maxAgeMs, this.hints.maxHintAgeMs) ? hint?.doc : undefined;
  }

  /** True when `next` is now the committed version; false when another writer took the number. */
  private async tryCommit(id: string, next: T, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.store.putIfAbsent(this.key(id, next.version), encode(next), { signal });
      return true;
    } catch (err) {
      // A concurrent conditional write (S3 409) is a lost race like a 412: re-read and re-decide.
      if (isSluiceError(err, 'PRECONDITION_FAILED') || isSluiceError(err, 'STORE_CONFLICT')) return false;
      // I13: the put may have landed and only its answer been lost; the store says which.
      let landed: T | null;
      try {
        landed = await this.readVersion(id, next.version, signal);
      } catch {
        throw err;
      }
      if (landed?.commitId === next.commitId) return true;
      if (landed) return false;
      throw err;
    }
  }

  private async readByListing(id: string, signal?: AbortSignal): Promise<T> {
    const newest = (await this.listVersions(id, signal)).at(-1);
    if (newest === undefined) return this.kind.empty(id);
    const doc = await this.readVersion(id, newest, signal);
    if (!doc) {
      throw new SluiceError('DATA_MISSING', `listed ${this.kind.name} version disappeared`, {
        id,
        version: newest,
      });
    }
    return doc;
  }

  private freshHint(id: string): T | undefined {
    const hint = this.latest.get(id);
    return hint && Date.now() - hint.seenAt < this.hints.maxHintAgeMs ? hint.doc : undefined;
  }

  private remember(id: string, doc: T): void {
    const hint = this.latest.get(id);
    if (!hint || doc.version >= hint.doc.version) this.latest.set(id, { doc, seenAt: Date.now() });
  }

  private decode(id: string, body: Uint8Array, version: number): T {
    try {
      return this.kind.validate(JSON.parse(new TextDecoder().decode(body)), version);
    } catch (err) {
      if (isSluiceError(err)) throw err;
      throw new SluiceError(
        'DATA_CORRUPT',
        `${this.kind.name} cannot be read`,
        { id, version },
        { cause: err },
      );
    }
  }
}

function encode(doc: Versioned): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(doc, null, 1)}\n`);
}
