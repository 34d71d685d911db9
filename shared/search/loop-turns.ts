/**
 * Turns of the event loop, one per caller, in the order asked: synchronous work split into
 * such turns lets the callbacks of native work (a LanceDB query's answer) run between its
 * pieces instead of after all of them.
 */
let last: Promise<void> = Promise.resolve();

/** Resolves in an event-loop turn of the caller's own, after those of every earlier caller. */
export function ownTurn(): Promise<void> {
  const turn = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  last = turn;
  return turn;
}
