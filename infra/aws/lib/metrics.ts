/**
 * The CloudWatch metrics this app scales and alarms on. The sampler publishes them every
 * tick as Embedded Metric Format log lines; their names are defined once, beside that code.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

import {
  DEAD_LETTERS,
  METRICS_NAMESPACE,
  POISONED_SHARDS,
  QUEUE_WAITING,
} from '../../../observability/cloudwatch-emf.ts';

export { DEAD_LETTERS, METRICS_NAMESPACE, POISONED_SHARDS, QUEUE_WAITING };

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
