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
import { handle } from 'hono/aws-lambda';
import { openRuntime } from '../runtime/runtime.ts';
import { type Config, loadConfig } from '../shared/config.ts';
import { SluiceError } from '../shared/errors.ts';
import { createLogger } from '../shared/log.ts';
import { assertConditionalWrites } from '../shared/store/conditional-probe.ts';
import { warnUnknownEnv } from '../shared/unknown-env.ts';
import { openApi } from './app.ts';

export type LambdaHandler = ReturnType<typeof handle>;

export interface LambdaApi {
  readonly handler: LambdaHandler;
  /** Settles once the store has shown it honours conditional writes; rejects, and every event fails, if not. */
  readonly ready: Promise<void>;
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
  const ready = assertConditionalWrites(runtime.parts.store);
  ready.catch((err: unknown) => log.fatal({ err }, 'the object store is not safe to run on'));
  return {
    handler: handle(api.app),
    ready,
    async close() {
      await api.close();
      await runtime.close();
    },
  };
}

let opened: LambdaApi | undefined;

export const handler: LambdaHandler = async (event, context) => {
  opened ??= openLambda(loadConfig());
  await opened.ready;
  return opened.handler(event, context);
};
