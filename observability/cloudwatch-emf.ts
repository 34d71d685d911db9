/**
 * The CloudWatch metrics the AWS deployment scales and alarms on (infra/aws reads these
 * names from here), published as Embedded Metric Format lines on stdout: the ECS log
 * driver ships them to CloudWatch Logs, which turns them into metrics. No AWS SDK call and
 * no extra permission is needed, and a sampler that is not on AWS simply leaves it off.
 */
export const METRICS_NAMESPACE = 'Sluice';
/** Jobs waiting in one queue, dimension `Queue`. */
export const QUEUE_WAITING = 'QueueWaiting';
/** Jobs in the dead-letter queue, no dimension. */
export const DEAD_LETTERS = 'DeadLetters';
/** Shards carrying a poison record, no dimension. */
export const POISONED_SHARDS = 'PoisonedShards';

export interface OperationalCounts {
  queueWaiting: Record<string, number>;
  deadLetters: number;
  poisonedShards: number;
}

export function emfLines(counts: OperationalCounts, now = Date.now()): string[] {
  const line = (dimensions: Record<string, string>, name: string, value: number) =>
    JSON.stringify({
      _aws: {
        Timestamp: now,
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [Object.keys(dimensions)],
            Metrics: [{ Name: name, Unit: 'Count' }],
          },
        ],
      },
      ...dimensions,
      [name]: value,
    });
  return [
    ...Object.entries(counts.queueWaiting).map(([queue, waiting]) =>
      line({ Queue: queue }, QUEUE_WAITING, waiting),
    ),
    line({}, DEAD_LETTERS, counts.deadLetters),
    line({}, POISONED_SHARDS, counts.poisonedShards),
  ];
}
