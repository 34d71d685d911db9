/**
 * The S3 test server's own process: `node --import tsx test/support/s3/server-main.ts
 * '{"buckets":["b"],"express":false,"ignoresConditions":false}'` listens on a free loopback
 * port and prints `{"port":N}` once it does. Besides S3, `PUT /_s3test/faults` sets the
 * fault script (fault-script.ts) and `GET /_s3test/stats` answers the requests served and
 * the faults injected. Out of process, so a test's own event loop can never serialize
 * what S3 would run concurrently, and so the server can be killed like a real endpoint.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type FaultScript, Faults } from './fault-script.ts';
import { ObjectSpace } from './object-space.ts';
import { handle } from './s3-protocol.ts';

interface ServerConfig {
  buckets: string[];
  express: boolean;
  ignoresConditions: boolean;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
const space = new ObjectSpace(config.buckets, {
  express: config.express,
  ignoresConditions: config.ignoresConditions,
});
const faults = new Faults();
const requests: Record<string, number> = {};

const server = createServer((req, res) => {
  if (req.url?.startsWith('/_s3test/')) return admin(req, res);
  requests[req.method ?? '?'] = (requests[req.method ?? '?'] ?? 0) + 1;
  handle({ space, faults, express: config.express }, req, res).catch((err: unknown) => {
    if (!res.headersSent) res.writeHead(500).end(String(err));
  });
});
server.keepAliveTimeout = 60_000;

function admin(req: IncomingMessage, res: ServerResponse) {
  if (req.method === 'GET' && req.url === '/_s3test/stats') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ requests, injected: faults.injected }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    faults.set(JSON.parse(Buffer.concat(chunks).toString('utf8')) as FaultScript);
    res.writeHead(204).end();
  });
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
