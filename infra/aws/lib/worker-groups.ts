/**
 * The worker services: one per queue group (docs/design.md, "Processes and deployment"), each its own ECS
 * service so each scales on its own backlog. `maxTasks === minTasks` means a fixed size, no scaling.
 */
export interface WorkerGroup {
  /** Construct id and the service's name suffix. */
  readonly id: string;
  /** Passed as `--queues=a,b` to jobs/worker.ts and as SLUICE_QUEUES. */
  readonly queues: readonly string[];
  readonly minTasks: number;
  readonly maxTasks: number;
  /** Fargate CPU units and memory (MiB); must be a valid Fargate pair. */
  readonly cpu: number;
  readonly memoryMiB: number;
  /** Backlog (jobs waiting in the group's queues) at which one more task is added. */
  readonly scaleOutBacklog: number;
  /** Publishes the Sluice/* CloudWatch metrics that scaling and alarms read (lib/metrics.ts). */
  readonly publishesMetrics: boolean;
}

export const WORKER_GROUPS: readonly WorkerGroup[] = [
  // Seal and flush are short, per-shard jobs on the write path: scale out early.
  {
    id: 'SealFlush',
    queues: ['seal', 'flush'],
    minTasks: 1,
    maxTasks: 8,
    cpu: 1024,
    memoryMiB: 2048,
    scaleOutBacklog: 50,
    publishesMetrics: false,
  },
  // The merge lane: a merge holds a batch of generations in memory, and an optimize follows it in the same job.
  {
    id: 'Merge',
    queues: ['merge'],
    minTasks: 1,
    maxTasks: 4,
    cpu: 1024,
    memoryMiB: 4096,
    scaleOutBacklog: 4,
    publishesMetrics: false,
  },
  // The sampler/scheduler is a singleton: exactly one task, never two during a deployment.
  {
    id: 'Sampler',
    queues: ['sampler'],
    minTasks: 1,
    maxTasks: 1,
    cpu: 256,
    memoryMiB: 512,
    scaleOutBacklog: 0,
    publishesMetrics: true,
  },
];

export function isSingleton(group: WorkerGroup): boolean {
  return group.minTasks === 1 && group.maxTasks === 1;
}
