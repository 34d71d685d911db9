/**
 * Where every BullMQ Queue of Sluice is made (docs/design.md, "Layers and rooms"): with the
 * queue's key prefix and a connection from the one factory, unless the caller hands it the
 * process's own Redis connection.
 */
import { Queue, type QueueBaseOptions } from 'bullmq';
import type { Config } from '../shared/config.ts';
import { QUEUE, type QueueName, queueOptions } from './queues.ts';

export function openQueue<Data = unknown>(
  config: Config,
  name: QueueName,
  connection?: QueueBaseOptions['connection'],
): Queue<Data> {
  return new Queue<Data>(name, queueOptions(config, name, connection));
}

/** One Queue of each of Sluice's queues, the dead-letter queue included. */
export function openEveryQueue(config: Config, connection?: QueueBaseOptions['connection']): Queue[] {
  return Object.values(QUEUE).map((name) => openQueue(config, name, connection));
}
