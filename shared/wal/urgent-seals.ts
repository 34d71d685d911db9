/**
 * Which shards' seals this process asks for at once, not after `sealDelayMs`: those whose
 * unsealed bytes fill most of a generation. The writer keeps this, not a lane: a lane is
 * forgotten whenever it goes idle, and one built anew would ask for the same seal again.
 */

/**
 * The share of `maxGenerationBytes` unsealed at which a shard's seal is asked for at once. Not
 * all of it, so that what lands while the seal starts still fits in that generation instead of
 * being cut into a small one of its own.
 */
const URGENT_SEAL_SHARE = 0.75;

/** A shard past the urgent share: its unsealed bytes as Redis last counted them, and whether its seal was asked for. */
interface PastShare {
  bytes: number;
  asked: boolean;
}

export class UrgentSeals {
  /** Per table, its shards past the urgent share; no others are kept. */
  private readonly tables = new Map<string, Map<number, PastShare>>();

  /**
   * Takes the shards' unsealed bytes as Redis counted them. A count goes down only when a seal
   * took bytes or Redis's count was set anew (a resync, a Redis that lost the lane); either way
   * the urgent seal asked for is no longer pending, and the next one may be asked for.
   */
  note(table: string, maxGenerationBytes: number, counted: ReadonlyMap<number, number>): void {
    const threshold = maxGenerationBytes * URGENT_SEAL_SHARE;
    let shards = this.tables.get(table);
    for (const [shard, bytes] of counted) {
      if (bytes < threshold) {
        shards?.delete(shard);
        continue;
      }
      if (!shards) {
        shards = new Map();
        this.tables.set(table, shards);
      }
      const known = shards.get(shard);
      shards.set(shard, { bytes, asked: known?.asked === true && bytes >= known.bytes });
    }
    if (shards?.size === 0) this.tables.delete(table);
  }

  /** Whether the shard's seal should run now rather than after the seal delay. */
  isUrgent(table: string, shard: number): boolean {
    return this.tables.get(table)?.has(shard) ?? false;
  }

  /** Whether the shard's seal is urgent and not yet asked for since its bytes last went down. */
  isDue(table: string, shard: number): boolean {
    const known = this.tables.get(table)?.get(shard);
    return known !== undefined && !known.asked;
  }

  /** Records that the shard's urgent seal was asked for. */
  asked(table: string, shard: number): void {
    const known = this.tables.get(table)?.get(shard);
    if (known) known.asked = true;
  }
}
