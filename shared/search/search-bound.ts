/**
 * What the sides of one search (the base and each pending group) have found so far, so that a
 * side stops asking for more once the others already hold the k best rows it could add
 * (docs/design.md, "Search"). A side's next ask can only bring rows ranked at or after the
 * last row it fetched; when k live candidates across all sides rank strictly before that row,
 * none of them can enter the answer. A side decides so only once every side has answered its
 * first ask, or ended.
 */
export class SearchBound {
  private readonly latest = new Map<number, ArrayLike<number>>();
  private readonly ended = new Set<number>();
  private readonly allIn: Promise<void>;
  private arrive!: () => void;

  /**
   * `before(a, b)`: whether score a ranks strictly before score b (a nearer distance, a
   * higher text score). `sides`: how many sides report.
   */
  constructor(
    private readonly k: number,
    private readonly before: (a: number, b: number) => boolean,
    private readonly sides: number,
  ) {
    this.allIn = new Promise((resolve) => {
      this.arrive = resolve;
    });
    this.check();
  }

  /** A side's live candidates' scores after its latest ask: each ask supersedes the one before. */
  heard(side: number, scores: ArrayLike<number>): void {
    this.latest.set(side, scores);
    this.check();
  }

  /** A side that is done, answered or failed: nobody waits for its first answer any more. */
  left(side: number): void {
    this.ended.add(side);
    this.check();
  }

  /** Whether the rows ranked after `last` can add nothing: k live candidates rank before it. */
  async covers(last: number): Promise<boolean> {
    await this.allIn;
    let count = 0;
    for (const scores of this.latest.values()) {
      for (let i = 0; i < scores.length; i++) {
        if (this.before(scores[i]!, last) && ++count >= this.k) return true;
      }
    }
    return false;
  }

  private check(): void {
    let reported = 0;
    for (let side = 0; side < this.sides; side++) {
      if (this.latest.has(side) || this.ended.has(side)) reported++;
    }
    if (reported === this.sides) this.arrive();
  }
}
