/**
 * Turns of the event loop, one per call, in the order asked: synchronous work split into such
 * turns lets the callbacks of native work (a LanceDB query's answer) run between its pieces
 * instead of after all of them.
 */

/** A taker of turns: each call resolves in an event-loop turn of its own, after those of every earlier call. */
export function loopTurns(): () => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const turn = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    last = turn;
    return turn;
  };
}
