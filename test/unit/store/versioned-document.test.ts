import { describe, expect, it } from 'vitest';
import type { GetOptions, StoredObject } from '../../../shared/store/object-store.ts';
import { type Versioned, VersionedDocuments } from '../../../shared/store/versioned-document.ts';
import { MemoryStore } from '../../support/memory-store.ts';

interface Counter extends Versioned {
  n: number;
}

const KIND = {
  name: 'counter',
  prefix: (id: string) => `${id}/_manifest/`,
  key: (id: string, version: number) => `${id}/_manifest/${String(version).padStart(20, '0')}.json`,
  empty: (): Counter => ({ version: 0, commitId: '', updatedAt: '', n: 0 }),
  validate: (parsed: unknown) => parsed as Counter,
};
const HINTS = { maxHintAgeMs: 60_000 };

/**
 * Counts GETs and the rounds they came in: a GET sent before any GET sent earlier has been
 * answered shares their round, as requests sent side by side share one endpoint latency.
 */
class RoundCountingStore extends MemoryStore {
  gets = 0;
  private answered = 0;
  private readonly roundsSeen = new Set<number>();

  get rounds(): number {
    return this.roundsSeen.size;
  }

  reset(): void {
    this.gets = 0;
    this.roundsSeen.clear();
  }

  override async get(key: string, options?: GetOptions): Promise<StoredObject | null> {
    this.gets++;
    this.roundsSeen.add(this.answered);
    try {
      return await super.get(key, options);
    } finally {
      this.answered++;
    }
  }
}

async function commit(docs: VersionedDocuments<Counter>, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await docs.update('d', (c) => ({ ...c, n: c.n + 1 }));
}

describe('versioned documents: reading the latest version', () => {
  it('a reader many versions behind its hint catches up in a few rounds of GETs, not one per version', async () => {
    const store = new RoundCountingStore();
    const writer = new VersionedDocuments(store, KIND, HINTS);
    const reader = new VersionedDocuments(store, KIND, HINTS);
    await commit(writer, 1);
    expect((await reader.read('d')).version).toBe(1);
    await commit(writer, 40);
    store.reset();
    const latest = await reader.read('d');
    expect(latest).toMatchObject({ version: 41, n: 41 });
    expect(store.rounds).toBeLessThanOrEqual(8);
  });

  it('a reader that is up to date, or one version behind, pays what it paid before: one GET, or two', async () => {
    const store = new RoundCountingStore();
    const writer = new VersionedDocuments(store, KIND, HINTS);
    const reader = new VersionedDocuments(store, KIND, HINTS);
    await commit(writer, 3);
    await reader.read('d');
    store.reset();
    expect((await reader.read('d')).version).toBe(3);
    expect(store.gets).toBe(1);
    await commit(writer, 1);
    store.reset();
    expect((await reader.read('d')).version).toBe(4);
    expect(store.gets).toBe(2);
  });

  it('every version committed before a read began is seen by it, while commits go on', async () => {
    const store = new RoundCountingStore();
    const writer = new VersionedDocuments(store, KIND, HINTS);
    const reader = new VersionedDocuments(store, KIND, HINTS);
    await commit(writer, 1);
    await reader.read('d');
    for (let step = 0; step < 20; step++) {
      await commit(writer, step);
      const before = (await writer.read('d')).version;
      const [seen] = await Promise.all([reader.read('d'), commit(writer, 3)]);
      expect(seen.version).toBeGreaterThanOrEqual(before);
      expect(seen.n).toBe(seen.version);
    }
  });
});
