/**
 * The process's Prometheus registry and every Sluice metric, defined once. Labels stay
 * low-cardinality: outcomes, queue names, kinds — never tables, keys or job ids.
 */
import { Counter, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

export const pendingGenerations = new Histogram({
  name: 'sluice_pending_generations',
  help: 'Pending generations (sealed plus committed-unmerged) per shard, sampled by the scheduler',
  buckets: [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096],
  registers: [registry],
});

export const pendingWarnings = new Counter({
  name: 'sluice_pending_warnings_total',
  help: 'Samples of a shard at or above the pending-generations warning threshold',
  registers: [registry],
});

export const gcDeletedObjects = new Counter({
  name: 'sluice_gc_deleted_objects_total',
  help: 'Objects deleted by garbage collection, by kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});
