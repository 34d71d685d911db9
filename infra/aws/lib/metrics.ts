/**
 * The CloudWatch metrics this app scales and alarms on. Sluice publishes them (the sampler,
 * every few seconds); this file is where their names are fixed for the infrastructure.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

export const METRICS_NAMESPACE = 'Sluice';

/** Jobs waiting in one queue (BullMQ waiting + prioritized), dimension `Queue` = queue name. */
export const QUEUE_WAITING = 'QueueWaiting';
/** Jobs in the dead-letter queue, no dimension. */
export const DEAD_LETTERS = 'DeadLetters';
/** Shards carrying a poison record, no dimension. */
export const POISONED_SHARDS = 'PoisonedShards';

const PERIOD = Duration.minutes(1);

export function queueWaiting(queue: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: QUEUE_WAITING,
    dimensionsMap: { Queue: queue },
    statistic: cloudwatch.Stats.MAXIMUM,
    period: PERIOD,
  });
}

/**
 * The backlog of a group of queues served by one service: the sum of their waiting jobs, a
 * queue that published nothing counting as 0 so one idle queue does not blank the sum.
 */
export function groupBacklog(queues: readonly string[]): cloudwatch.IMetric {
  if (queues.length === 1) return queueWaiting(queues[0]!);
  const usingMetrics = Object.fromEntries(queues.map((queue, i) => [`q${i}`, queueWaiting(queue)]));
  return new cloudwatch.MathExpression({
    expression: queues.map((_, i) => `FILL(q${i}, 0)`).join(' + '),
    usingMetrics,
    label: `${queues.join('+')} waiting`,
    period: PERIOD,
  });
}

export function deadLetters(): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: DEAD_LETTERS,
    statistic: cloudwatch.Stats.MAXIMUM,
    period: PERIOD,
  });
}

export function poisonedShards(): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: POISONED_SHARDS,
    statistic: cloudwatch.Stats.MAXIMUM,
    period: PERIOD,
  });
}
