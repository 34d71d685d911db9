/**
 * The API as an AWS Lambda handler for API Gateway v2 (HTTP API) and Function URL events.
 * hono/aws-lambda decodes `isBase64Encoded` bodies (Arrow uploads) and base64-encodes
 * every response that is not text or JSON (Arrow downloads). Logs are written
 * synchronously: Lambda may freeze the process before an asynchronous buffer drains. The
 * runtime opens on the first event and lives as long as the container.
 *
 * A function URL is reachable by anyone who knows it, so without tokens the handler
 * refuses to start rather than serve with auth off.
 */
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { openRuntime } from '../runtime/runtime.ts';
import { type Config, loadConfig } from '../shared/config.ts';
import { SluiceError } from '../shared/errors.ts';
import { createLogger, type Logger } from '../shared/log.ts';
import { assertConditionalWrites } from '../shared/store/conditional-probe.ts';
import { warnUnknownEnv } from '../shared/unknown-env.ts';
import { openApi } from './app.ts';
import { errorResponse } from './errors.ts';
import type { Env } from './request.ts';

export type LambdaHandler = ReturnType<typeof handle>;

export interface LambdaApi {
  readonly handler: LambdaHandler;
  close(): Promise<void>;
}

export function openLambda(config: Config): LambdaApi {
  if (config.tokens.length === 0) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'SLUICE_TOKENS is empty: the Lambda API never runs with auth off',
    );
  }
  const log = createLogger({ level: config.logLevel, sync: true, name: 'sluice-api' });
  warnUnknownEnv(log);
  const runtime = openRuntime(config, log);
  const api = openApi(runtime);
  return {
    handler: handle(onSafeStore(api.app, assertConditionalWrites(runtime.parts.store), log)),
    async close() {
      await api.close();
      await runtime.close();
    },
  };
}

let opened: LambdaApi | undefined;

export const handler: LambdaHandler = (event, context) => {
  opened ??= openLambda(loadConfig());
  return opened.handler(event, context);
};

/**
 * Every route but liveness waits for the store's conditional-write probe, and fails with
 * its error (STORE_UNSAFE) if the store ignores them: nothing is accepted before.
 */
function onSafeStore(app: Hono<Env>, probed: Promise<void>, log: Logger): Hono<Env> {
  probed.catch((err: unknown) => log.fatal({ err }, 'the object store is not safe to run on'));
  const gated = new Hono<Env>();
  gated.use(async (c, next) => {
    if (c.req.path !== '/healthz') await probed;
    await next();
  });
  gated.onError(errorResponse);
  gated.route('/', app);
  return gated;
}
