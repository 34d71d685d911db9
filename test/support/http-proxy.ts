/**
 * An HTTP proxy on a random loopback port in front of a real server, for client tests
 * that need a connection to fail where they choose. For each request a policy says:
 * `forward` (answer as the server did), `drop` (the request reaches the server, which
 * answers, then the client's connection is destroyed before any byte of that answer), or
 * `hold` (the request reaches the server and the client waits forever for the answer).
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ProxyAction = 'forward' | 'drop' | 'hold';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface HttpProxy {
  readonly url: string;
  /** Every request the server answered, in the order of its answers, with what was done to it. */
  readonly seen: Array<ProxiedRequest & { action: ProxyAction; status: number }>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function upstream(target: URL, req: IncomingMessage, body: Buffer) {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>(
    (resolve, reject) => {
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent: false,
        },
        async (res) =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: await readBody(res) }),
      );
      out.on('error', reject);
      out.end(body);
    },
  );
}

export async function startHttpProxy(
  targetUrl: string,
  policy: (req: ProxiedRequest) => ProxyAction,
): Promise<HttpProxy> {
  const target = new URL(targetUrl);
  const seen: HttpProxy['seen'] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const proxied = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers };
    const action = policy(proxied);
    const answer = await upstream(target, req, await readBody(req));
    seen.push({ ...proxied, action, status: answer.status });
    if (action === 'drop') return void req.socket.destroy();
    if (action === 'hold') return;
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
