/**
 * The API on Node's HTTP server (@hono/node-server), for local runs and any HTTP host.
 * With no tokens configured auth is off: the server then listens on loopback only and
 * warns; asked to listen anywhere else without tokens, it refuses to start.
 */
import type { AddressInfo } from 'node:net';
import { isIPv4 } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Config } from '../shared/config.ts';
import { SluiceError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import type { Env } from './request.ts';

export interface HttpServer {
  /** `http://host:port`, with the port actually bound (SLUICE_PORT=0 picks a free one). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and waits for the requests in progress. */
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return isIPv4(v4) && v4.startsWith('127.');
}

export function startServer(app: Hono<Env>, config: Config, log: Logger): Promise<HttpServer> {
  if (config.tokens.length === 0) {
    if (!isLoopback(config.host)) {
      throw new SluiceError(
        'INVALID_CONFIG',
        `refusing to listen on ${config.host} with auth off: set SLUICE_TOKENS, or SLUICE_HOST=127.0.0.1`,
        { host: config.host },
      );
    }
    log.warn({ host: config.host }, 'auth is off (no SLUICE_TOKENS): listening on loopback only');
  }
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: app.fetch,
      hostname: config.host,
      port: config.port,
      // Node's own cap on receiving a whole request: a client trickling a body is cut off too.
      serverOptions: { requestTimeout: config.http.requestTimeoutMs },
    });
    const refused = (err: Error) =>
      reject(
        new SluiceError('INVALID_CONFIG', `cannot listen on ${config.host}:${config.port}: ${err.message}`, {
          host: config.host,
          port: config.port,
        }),
      );
    server.once('error', refused);
    server.once('listening', () => {
      server.off('error', refused);
      const { port } = server.address() as AddressInfo;
      const host =
        config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
      resolve({
        url: `http://${host}:${port}`,
        port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }),
      });
    });
  });
}
