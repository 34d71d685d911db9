/**
 * `npm start`: Sluice on this machine, in one process, until SIGINT or SIGTERM. Finds or
 * starts a Redis, then runs everything `runLocal` hosts.
 */
import { loadConfig } from '../../shared/config.ts';
import { warnUnknownEnv } from '../../shared/unknown-env.ts';
import { createCliLogger, runCli } from './cli.ts';
import { type EnsuredRedis, ensureRedis } from './redis.ts';
import { redisWhere, runLocal } from './run-local.ts';

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

runCli('sluice', async () => {
  const config = loadConfig();
  const log = createCliLogger(config);
  warnUnknownEnv(log);
  // A cluster is the operator's to run: a private single node would only hide a wrong seed list.
  const redis: EnsuredRedis =
    config.redisClusterNodes === ''
      ? await ensureRedis(config.redisUrl, log)
      : { url: config.redisUrl, owned: false, stop: async () => {} };
  try {
    const local = await runLocal({ ...config, redisUrl: redis.url }, log);
    const api =
      local.url === null ? {} : { url: local.url, try: curlLine(local.url, config.tokens.length > 0) };
    log.info(
      {
        storeUrl: local.store.url,
        ...redisWhere({ ...config, redisUrl: redis.url }),
        role: config.role,
        ...api,
      },
      'sluice ready',
    );
    const signal = await firstSignal();
    log.info({ signal }, 'shutting down');
    await local.close();
  } finally {
    await redis.stop();
  }
  log.info('stopped');
  return 0;
});

function curlLine(url: string, auth: boolean): string {
  return auth
    ? `curl -s -H "Authorization: Bearer $SLUICE_TOKEN" ${url}/v1/tables`
    : `curl -s ${url}/v1/tables`;
}

/** Only the first signal is handled: a second one finds no listener here and ends the process at once. */
function firstSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const name of SHUTDOWN_SIGNALS) process.off(name, onSignal);
      resolve(signal);
    };
    for (const name of SHUTDOWN_SIGNALS) process.on(name, onSignal);
  });
}
