/** Sealed generations and flush artifacts for the tests of shard manifest changes. */
import type { SealedGeneration } from '../../shared/lsm/shard-manifest.ts';

/** Generation `generation` sealed over WAL entries `walFrom`..`walTo`. */
export function sealed(generation: number, walFrom: number, walTo: number): SealedGeneration {
  return {
    generation,
    walFrom,
    walTo,
    walRows: walTo - walFrom + 1,
    walBytes: 100,
    sealedAt: new Date().toISOString(),
  };
}

/** What a flush of `generation` would commit. */
export function artifact(generation: number): { path: string; rows: number; bytes: number } {
  return { path: `gen/${generation}`, rows: 1, bytes: 1 };
}
