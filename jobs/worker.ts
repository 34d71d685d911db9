/**
 * Worker process entry: `tsx jobs/worker.ts --queues=seal,flush`. Runs the workers of the
 * named queues (default: SLUICE_QUEUES) and serves /metrics and /healthz on
 * SLUICE_METRICS_PORT until SIGTERM or SIGINT, then stops taking jobs, lets the active
 * ones finish within the shutdown grace period and exits.
 */
import { parseArgs } from 'node:util';
import { startMetricsServer } from '../observability/metrics-server.ts';
import { registerScrapeSource } from '../observability/scrape-source.ts';
import { openRuntime } from '../runtime/runtime.ts';
import { loadConfig } from '../shared/config.ts';
import { createLogger } from '../shared/log.ts';
import { warnUnknownEnv } from '../shared/unknown-env.ts';
import { parseQueues, startWorkers } from './workers.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { queues: { type: 'string' } } });
  const config = loadConfig();
  const log = createLogger({
    level: config.logLevel,
    pretty: config.logPretty,
    sync: config.logSync,
    name: 'sluice-worker',
  });
  warnUnknownEnv(log);
  const queues = parseQueues(values.queues ?? config.queues);
  if (queues.length === 0) throw new Error(`no worker queue named in "${values.queues ?? config.queues}"`);
  const runtime = openRuntime(config, log);
  const metrics = await startMetricsServer(config.host, config.metricsPort);
  const scrape = registerScrapeSource(runtime.sluice, runtime.redis);
  const workers = startWorkers(runtime.sluice, queues);
  log.info({ queues, pid: process.pid, metricsUrl: metrics.url }, 'workers ready');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping workers');
    await workers.close();
    await scrape.close();
    await metrics.close();
    await runtime.close();
    log.info('workers stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
