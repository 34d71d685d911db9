/**
 * The S3 test server's own process: `node --import tsx test/support/s3/server-main.ts
 * '{"buckets":["b"],"express":false,"ignoresConditions":false}'` listens on a free loopback
 * port and prints `{"port":N}` once it does. Besides S3, `PUT /_s3test/faults` sets the
 * fault script (fault-script.ts), `GET /_s3test/stats` answers the requests served and
 * the faults injected, `GET /_s3test/ops?under=bucket/prefix` the requests served by kind
 * for each directory (`bucket/` and the key up to its last `/`) under that prefix, and
 * `POST /_s3test/purge` with `{"bucket","prefix"}` drops every object under the prefix at
 * once (a bench frees the memory of a finished case with it). Out of process, so a test's
 * own event loop can never serialize what S3 would run concurrently, and so the server can
 * be killed like a real endpoint.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type FaultScript, Faults, type S3Op } from './fault-script.ts';
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
/** Requests by directory (`bucket/dir/`, `bucket/` for the bucket's root) and kind. */
const ops = new Map<string, Partial<Record<S3Op, number>>>();

function count(op: S3Op, bucket: string, key: string): void {
  const dir = `${bucket}/${key.slice(0, key.lastIndexOf('/') + 1)}`;
  let kinds = ops.get(dir);
  if (!kinds) {
    kinds = {};
    ops.set(dir, kinds);
  }
  kinds[op] = (kinds[op] ?? 0) + 1;
}

const server = createServer((req, res) => {
  if (req.url?.startsWith('/_s3test/')) return admin(req, res);
  requests[req.method ?? '?'] = (requests[req.method ?? '?'] ?? 0) + 1;
  handle({ space, faults, express: config.express, onRequest: count }, req, res).catch((err: unknown) => {
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
  const url = new URL(req.url ?? '/', 'http://s3.test');
  if (req.method === 'GET' && url.pathname === '/_s3test/ops') {
    const under = url.searchParams.get('under') ?? '';
    const answer = Object.fromEntries([...ops].filter(([dir]) => dir.startsWith(under)));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (url.pathname === '/_s3test/purge') {
      const { bucket, prefix } = body as { bucket: string; prefix: string };
      if (!space.hasBucket(bucket) || prefix === '') return void res.writeHead(400).end();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ purged: space.purge(bucket, prefix) }));
      return;
    }
    faults.set(body as FaultScript);
    res.writeHead(204).end();
  });
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
