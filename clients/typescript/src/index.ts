export type { components, operations, paths } from './api-types.ts';
export {
  ARROW_STREAM,
  arrowBatches,
  type Batch,
  type BatchLimits,
  DEFAULT_BATCH_LIMITS,
  jsonBatches,
} from './batches.ts';
export * from './client.ts';
export * from './errors.ts';
export type { ShardLeft } from './merged-through.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
export type { TransportOptions } from './transport.ts';
export type * from './types.ts';
