import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../../shared/store/abort.ts';

describe('withDeadline: a signal that aborts a call still running after its deadline', () => {
  it('aborts the signal of a call that outlives the deadline, with a TimeoutError', async () => {
    const reason = await withDeadline(
      10,
      (signal) =>
        new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))),
    );
    expect(reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('answers what the call answers and never aborts a signal whose call already ended', async () => {
    let seen: AbortSignal | undefined;
    const answer = await withDeadline(10, async (signal) => {
      seen = signal;
      return 'done';
    });
    await sleep(40);
    expect(answer).toBe('done');
    expect(seen?.aborted).toBe(false);
  });

  it('passes a failure of the call on as it is', async () => {
    const failure = new Error('store down');
    await expect(withDeadline(1000, () => Promise.reject(failure))).rejects.toBe(failure);
  });
});
