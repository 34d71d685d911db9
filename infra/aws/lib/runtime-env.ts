/**
 * The SLUICE_* environment every Sluice process on AWS gets (names in docs/design.md, "Environment"). Tokens
 * are not here: only the HTTP functions serve requests, and they take them from SSM.
 */
import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

export interface RuntimeEnvProps {
  redisUrl: string;
  /** Seeds of a Redis Cluster; unset for one primary. */
  redisClusterNodes?: string;
  redisPrefix: string;
  storeUrl: string;
}

export function runtimeEnv(scope: Construct, props: RuntimeEnvProps): Record<string, string> {
  return {
    SLUICE_REDIS_URL: props.redisUrl,
    ...(props.redisClusterNodes ? { SLUICE_REDIS_CLUSTER_NODES: props.redisClusterNodes } : {}),
    SLUICE_REDIS_PREFIX: props.redisPrefix,
    SLUICE_STORE_URL: props.storeUrl,
    // The bucket lives in the stack's region; the S3 client must not guess another.
    SLUICE_S3_REGION: Stack.of(scope).region,
  };
}
