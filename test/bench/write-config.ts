/**
 * The configuration of one write-bench case's Sluice, built the same way by the writing
 * process and by its workers' process (write-workers.ts), so both open the same Redis
 * prefix and store with the same settings.
 */
import { type Config, loadConfig } from '../../shared/config.ts';
import { type BenchLocation, storeSettings } from './write-stores.ts';

export interface WriteSluiceOptions {
  /** The store's temp dir or S3 prefix; each process opens it with `openBenchStore(location)`. */
  location: BenchLocation;
  redisUrl: string;
  redisPrefix: string;
  groupCommit: boolean;
  logLevel: Config['logLevel'];
}

export function writeSluiceConfig(options: WriteSluiceOptions): Config {
  return loadConfig(process.env, {
    redisUrl: options.redisUrl,
    redisPrefix: options.redisPrefix,
    ...storeSettings(options.location),
    logLevel: options.logLevel,
    wal: { groupCommit: options.groupCommit },
  });
}
