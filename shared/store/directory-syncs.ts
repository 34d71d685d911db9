/**
 * Group fsync of directories (docs/design.md, "Object layout"): callers that made entries in
 * one directory share an fsync of it. An fsync makes durable every entry made before it
 * began, so a caller never joins one already running — its entry may be newer than that
 * fsync's start — but waits for the next, which begins when the running one ends and serves
 * everyone who arrived meanwhile. Under many writers to one directory there are at most two
 * fsyncs of it in play, not one per write.
 */

interface DirectoryState {
  running: Promise<void> | null;
  waiting: Promise<void> | null;
}

export class DirectorySyncs {
  private readonly dirs = new Map<string, DirectoryState>();

  constructor(private readonly syncDirectory: (dir: string) => Promise<void>) {}

  /** Resolves once an fsync of `dir` that began after this call has succeeded. */
  sync(dir: string): Promise<void> {
    const state = this.dirs.get(dir) ?? { running: null, waiting: null };
    this.dirs.set(dir, state);
    if (!state.running) return this.start(dir, state);
    if (!state.waiting) {
      const settled = state.running.then(
        () => undefined,
        () => undefined,
      );
      const next = settled.then(() => {
        state.waiting = null;
        return this.start(dir, state);
      });
      state.waiting = next;
    }
    return state.waiting;
  }

  private start(dir: string, state: DirectoryState): Promise<void> {
    const run: Promise<void> = this.syncDirectory(dir).finally(() => {
      if (state.running === run) state.running = null;
      if (!state.running && !state.waiting) this.dirs.delete(dir);
    });
    state.running = run;
    return run;
  }
}
