import { describe, expect, it } from 'vitest';
import { PutPipeline } from '../../../shared/wal/put-pipeline.ts';
import type { WriteGroup } from '../../../shared/wal/write-group.ts';

const LIMITS = { maxPutsInFlight: 3, pipelineMinBytes: 1_000, pipelineWaitMs: 2 };

function group(openedAt: number, bytes = 10): WriteGroup {
  return { writes: [], rows: 1, bytes, waiters: [], openedAt };
}

/** A pipeline whose puts have taken `typicalMs` each, with one put in flight since `since`. */
function busy(typicalMs: number, since: number): PutPipeline {
  const pipeline = new PutPipeline(LIMITS);
  for (let i = 0; i < 10; i++) pipeline.end(pipeline.begin(-1_000), -1_000 + typicalMs);
  pipeline.begin(since);
  return pipeline;
}

describe('PutPipeline', () => {
  it('starts a put at once when none is in flight', () => {
    expect(new PutPipeline(LIMITS).decide(group(0), 1, 0)).toEqual({ kind: 'start' });
  });

  it('waits for a put to end while maxPutsInFlight are in flight', () => {
    const pipeline = busy(50, 0);
    pipeline.begin(0);
    pipeline.begin(0);
    expect(pipeline.decide(group(0), 1, 40)).toEqual({ kind: 'wait' });
  });

  it('starts a group that holds pipelineMinBytes, or has a full group behind it, at once', () => {
    expect(busy(50, 0).decide(group(10, 1_000), 1, 10)).toEqual({ kind: 'start' });
    expect(busy(50, 0).decide(group(10), 2, 10)).toEqual({ kind: 'start' });
  });

  it('lets a group gather for pipelineWaitMs first', () => {
    expect(busy(50, 0).decide(group(10), 1, 10.5)).toEqual({ kind: 'askAgain', ms: 1.5 });
  });

  it('behind a slow store, starts the group once it has gathered', () => {
    expect(busy(50, 0).decide(group(10), 1, 12)).toEqual({ kind: 'start' });
  });

  it('on a fast store, waits for the running put expected to end within pipelineWaitMs', () => {
    // Puts take 3 ms; the running one began at 0 and should end at 3, one ms after the ask.
    expect(busy(3, 0).decide(group(0), 1, 2)).toEqual({ kind: 'askAgain', ms: 3 });
  });

  it('starts the group once the running put overran its expected time by pipelineWaitMs', () => {
    expect(busy(3, 0).decide(group(0), 1, 4)).toEqual({ kind: 'askAgain', ms: 1 });
    expect(busy(3, 0).decide(group(0), 1, 5)).toEqual({ kind: 'start' });
  });

  it('starts the group once it has gathered when no put has ended yet to expect a time from', () => {
    const pipeline = new PutPipeline(LIMITS);
    pipeline.begin(0);
    expect(pipeline.decide(group(0), 1, 2)).toEqual({ kind: 'start' });
  });

  it('expects what the recent puts took: a slower run of puts moves the expectation', () => {
    const pipeline = busy(3, 0);
    for (let i = 0; i < 20; i++) pipeline.end(pipeline.begin(100 * i), 100 * i + 40);
    expect(pipeline.inFlight).toBe(1);
    expect(pipeline.decide(group(0), 1, 2)).toEqual({ kind: 'start' });
  });
});
