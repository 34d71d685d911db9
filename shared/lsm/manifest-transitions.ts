/**
 * The only ways a shard manifest may change. Each transition is a pure decision on the
 * latest manifest: it returns the next manifest, `null` when its effect is already there
 * (a retried or redelivered job, a commit whose answer was lost), or throws when the
 * change is not allowed.
 */
import { SluiceError } from '../errors.ts';
import { assertNotPoisoned, type PoisonRecord } from '../shard-poison.ts';
import {
  type CommittedGeneration,
  committedAbove,
  type ManifestChange,
  type SealedGeneration,
  type ShardManifest,
} from './shard-manifest.ts';

/**
 * I11: a generation below the current one is committed, whoever committed it. A flush that
 * fails on such a generation (a zombie that lost the race and met GC) has nothing left to
 * do, and nothing to poison.
 */
export function isCommitted(manifest: ShardManifest, generation: number): boolean {
  return generation < manifest.currentGeneration;
}

/** Seals `generations`, which must continue the WAL exactly where the last seal ended. */
export function sealGenerations(manifest: ShardManifest, generations: SealedGeneration[]): ManifestChange {
  assertNotPoisoned(manifest);
  const first = generations[0];
  if (!first) return null;
  if (first.walFrom !== manifest.sealedThrough + 1 || first.generation !== manifest.nextGeneration) {
    // Another seal got there first; the caller re-plans from this manifest.
    return null;
  }
  const last = generations.at(-1)!;
  return {
    ...manifest,
    sealed: [...manifest.sealed, ...generations],
    sealedThrough: last.walTo,
    nextGeneration: last.generation + 1,
  };
}

/**
 * A table lane's seal found no entry of this shard through `through` (docs/table-wal-lane.md,
 * §4): with nothing sealed waiting, no seq up to there holds the shard's rows, so the sealed
 * range and the cursor both move past them and the next seal lists from there (I4 holds: no
 * entry it passes has a section for this shard). With generations waiting it changes nothing:
 * the cursor must stop at each generation's end, and the next generation will cover the seqs.
 */
export function advanceSealed(manifest: ShardManifest, through: number): ManifestChange {
  assertNotPoisoned(manifest);
  if (through <= manifest.sealedThrough || manifest.sealed.length > 0) return null;
  return { ...manifest, sealedThrough: through, walCursor: through };
}

/**
 * I3: commits `generation`, which must be the manifest's current generation and the lowest
 * sealed one. I4: the cursor moves to the generation's last WAL entry and no further.
 * Committing a generation that is already committed is a no-op (I11, I13).
 */
export function commitGeneration(
  manifest: ShardManifest,
  generation: number,
  artifact: { path: string; rows: number; bytes: number },
): ManifestChange {
  if (isCommitted(manifest, generation)) return null;
  assertNotPoisoned(manifest);
  const sealed = manifest.sealed[0];
  if (generation !== manifest.currentGeneration || sealed?.generation !== generation) {
    throw new SluiceError('GENERATION_GAP', `generation ${generation} is not the next to commit`, {
      table: manifest.table,
      shard: manifest.shard,
      generation,
      currentGeneration: manifest.currentGeneration,
      lowestSealed: sealed?.generation ?? null,
    });
  }
  // A committed generation is read from its L0 file: where its rows were in the WAL is done with.
  const { members: _, ...range } = sealed;
  const committed: CommittedGeneration = { ...range, ...artifact, committedAt: new Date().toISOString() };
  return {
    ...manifest,
    sealed: manifest.sealed.slice(1),
    committed: [...manifest.committed, committed],
    walCursor: sealed.walTo,
    currentGeneration: generation + 1,
  };
}

/**
 * Drops committed generations at or below `watermark` from the manifest, so it stays as
 * small as the pending work instead of growing with every generation ever flushed. Only
 * for a watermark every reader has already seen (GC's settled base): a reader skips
 * generations at or below the watermark of the base it read.
 */
export function pruneMerged(manifest: ShardManifest, watermark: number): ManifestChange {
  // I7: nothing mutates a poisoned shard's manifest; pruning waits for the reopen.
  if (manifest.poison) return null;
  const kept = committedAbove(manifest, watermark);
  return kept.length === manifest.committed.length ? null : { ...manifest, committed: kept };
}

/**
 * I7: the first poison wins; a later one (another job of the same shard) changes nothing,
 * and neither does one for a generation that is committed by now (I11).
 */
export function poisonShard(manifest: ShardManifest, poison: PoisonRecord): ManifestChange {
  if (manifest.poison) return null;
  if (poison.generation !== null && isCommitted(manifest, poison.generation)) return null;
  return { ...manifest, poison };
}

/** I8: clears the poison; the sealed generations from the cursor on are flushed again. */
export function reopenShard(manifest: ShardManifest): ManifestChange {
  if (!manifest.poison) {
    throw new SluiceError(
      'SHARD_NOT_POISONED',
      `shard ${manifest.shard} of table ${manifest.table} is not poisoned`,
      {
        table: manifest.table,
        shard: manifest.shard,
      },
    );
  }
  return { ...manifest, poison: null };
}
