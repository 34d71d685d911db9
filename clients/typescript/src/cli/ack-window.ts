/**
 * Numbered batches sent a few at a time, none more than `width` ahead of the first one not
 * yet acked, with the acked prefix reported in order. A resumed load therefore sends again
 * at most `width` batches that had landed (each with its key, so none lands twice), and
 * at most `width` batches wait in memory.
 */
export interface Numbered {
  index: number;
}

export class AckWindow<T extends Numbered, R> {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly acked = new Map<number, { item: T; result: R }>();
  private failure: { error: unknown } | null = null;
  private reported: Promise<void> = Promise.resolve();

  constructor(
    /** The first index of the prefix still to report. */
    private next: number,
    private readonly width: number,
    private readonly send: (item: T) => Promise<R>,
    /** Called once per batch, in index order, after every batch before it. */
    private readonly onAcked: (item: T, result: R) => Promise<void>,
  ) {}

  /** Sends `item` once the window has room for it; throws the first failure. */
  async push(item: T): Promise<void> {
    while (!this.failure && item.index >= this.next + this.width) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure.error;
    const sent: Promise<void> = this.send(item)
      .then((result) => {
        this.acked.set(item.index, { item, result });
        this.advance();
      })
      .catch((error: unknown) => this.fail(error))
      .finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
  }

  /** Waits for every batch sent and every report; throws the first failure. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    await this.reported;
    if (this.failure) throw this.failure.error;
  }

  private advance(): void {
    for (let head = this.acked.get(this.next); head; head = this.acked.get(this.next)) {
      this.acked.delete(this.next);
      this.next++;
      const { item, result } = head;
      this.reported = this.reported
        .then(() => this.onAcked(item, result))
        .catch((error: unknown) => this.fail(error));
    }
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
  }
}
