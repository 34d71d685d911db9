/**
 * The configuration of one write-bench case's Sluice, built the same way by the writing
 * process and by its workers' process (write-workers.ts), so both open the same Redis
 * prefix and store with the same settings.
 */
import { type Config, loadConfig } from '../../shared/config.ts';
import type { StoreProfile } from './write-stores.ts';

export interface WriteSluiceOptions {
  /** The file store's directory; each process opens it with `openBenchStore(dir, profile)`. */
  dir: string;
  profile: StoreProfile;
  redisUrl: string;
  redisPrefix: string;
  groupCommit: boolean;
  logLevel: Config['logLevel'];
}

export function writeSluiceConfig(options: WriteSluiceOptions): Config {
  return loadConfig(process.env, {
    redisUrl: options.redisUrl,
    redisPrefix: options.redisPrefix,
    storeUrl: `file://${options.dir}`,
    logLevel: options.logLevel,
    wal: { groupCommit: options.groupCommit },
  });
}
