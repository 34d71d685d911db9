import { describe, expect, it } from 'vitest';
import { emfLines } from '../../../observability/cloudwatch-emf.ts';

describe('CloudWatch Embedded Metric Format lines', () => {
  it('gives one QueueWaiting line per queue with its Queue dimension, and the two alarm metrics without', () => {
    const lines = emfLines(
      { queueWaiting: { seal: 2, flush: 7 }, deadLetters: 1, poisonedShards: 3 },
      1_000,
    ).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      {
        _aws: {
          Timestamp: 1_000,
          CloudWatchMetrics: [
            {
              Namespace: 'Sluice',
              Dimensions: [['Queue']],
              Metrics: [{ Name: 'QueueWaiting', Unit: 'Count' }],
            },
          ],
        },
        Queue: 'seal',
        QueueWaiting: 2,
      },
      expect.objectContaining({ Queue: 'flush', QueueWaiting: 7 }),
      expect.objectContaining({
        DeadLetters: 1,
        _aws: expect.objectContaining({ CloudWatchMetrics: [expect.objectContaining({ Dimensions: [[]] })] }),
      }),
      expect.objectContaining({ PoisonedShards: 3 }),
    ]);
  });
});
