/**
 * A Sluice runtime on the S3 test server: its own Redis namespace, the store (and, when
 * given, the WAL's own store) on the server's buckets, everything else as configured.
 */
import { openRuntime, type Runtime } from '../../runtime/runtime.ts';
import { type Config, loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { createRedisNamespace, type RedisNamespace } from './redis.ts';
import type { S3TestServer } from './s3-server.ts';

export interface S3Runtime {
  config: Config;
  runtime: Runtime;
  namespace: RedisNamespace;
  close(): Promise<void>;
}

export function s3Config(
  server: S3TestServer,
  options: { prefix?: string; express?: boolean; wal?: { server: S3TestServer; bucket: string } } = {},
  namespace?: RedisNamespace,
): Config {
  return loadConfig(
    {},
    {
      ...(namespace ? { redisUrl: namespace.url, redisPrefix: namespace.prefix } : {}),
      storeUrl: `s3://${server.bucket}/${options.prefix ?? 'sluice/'}`,
      ...(options.wal
        ? { walStoreUrl: `s3://${options.wal.bucket}/wal/`, walS3Endpoint: options.wal.server.endpoint }
        : {}),
      s3: {
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        accessKeyId: server.credentials.accessKeyId,
        secretAccessKey: server.credentials.secretAccessKey,
        ...(options.express === undefined ? {} : { express: options.express }),
      },
      logLevel: 'silent',
    },
  );
}

export function openS3Runtime(server: S3TestServer, options: Parameters<typeof s3Config>[1] = {}): S3Runtime {
  const namespace = createRedisNamespace();
  const config = s3Config(server, options, namespace);
  const runtime = openRuntime(config, createLogger({ level: 'silent' }));
  return {
    config,
    runtime,
    namespace,
    async close() {
      await runtime.close();
      await namespace.cleanup();
    },
  };
}
