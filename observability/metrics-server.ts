/**
 * A worker process's own HTTP listener: `GET /metrics` (the process's Prometheus registry)
 * and `GET /healthz`, nothing else. It takes no token: it serves counts under
 * low-cardinality labels, no table, key or job id; keep its port on a private network.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SluiceError } from '../shared/errors.ts';
import { registry } from '../shared/metrics.ts';

export interface MetricsServer {
  /** `http://host:port`, with the port actually bound (0 picks a free one). */
  readonly url: string;
  close(): Promise<void>;
}

export function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics' && path !== '/healthz') return send(res, 404, 'text/plain', 'not found\n');
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'method not allowed\n', { Allow: 'GET' });
    if (path === '/healthz') return send(res, 200, 'application/json', '{"status":"ok"}');
    registry.metrics().then(
      (text) => send(res, 200, registry.contentType, text),
      (err: unknown) => send(res, 500, 'text/plain', `${err instanceof Error ? err.message : err}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    const refused = (err: Error) =>
      reject(
        new SluiceError(
          'INVALID_CONFIG',
          `cannot serve metrics on ${host}:${port}: ${err.message} (SLUICE_METRICS_PORT=0 picks a free port)`,
          { host, port },
        ),
      );
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            // A scraper's keep-alive connection would otherwise hold the process open.
            server.closeAllConnections();
          }),
      });
    });
  });
}

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'Content-Type': type, ...headers }).end(body);
}
