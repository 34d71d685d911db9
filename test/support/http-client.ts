/**
 * A plain HTTP client for the API tests. It uses node:http rather than fetch so that a
 * path goes out exactly as written (fetch would resolve `..` before sending it) and a
 * body can be sent chunked, without a Content-Length.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape the route answers.
  json: any;
}

export interface CallOptions {
  token?: string;
  /** Sent as `application/json` unless `contentType` says otherwise. */
  json?: unknown;
  body?: Uint8Array | string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Send the body with Transfer-Encoding: chunked and no Content-Length. */
  chunked?: boolean;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Reply>;

export function httpClient(baseUrl: string): Call {
  const { hostname, port } = new URL(baseUrl);
  return (method, path, options = {}) =>
    new Promise((resolve, reject) => {
      const body =
        options.json !== undefined
          ? JSON.stringify(options.json)
          : (options.body as Uint8Array | string | undefined);
      const headers: Record<string, string> = { ...options.headers };
      const contentType =
        options.contentType ?? (options.json !== undefined ? 'application/json' : undefined);
      if (contentType) headers['content-type'] = contentType;
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (body !== undefined && !options.chunked) headers['content-length'] = String(Buffer.byteLength(body));
      // A connection per request: a kept-alive socket the server is just closing would fail the next case.
      const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          let json: unknown;
          try {
            json = JSON.parse(bytes.toString('utf8'));
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, json });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (body !== undefined && options.chunked) {
        // Several writes, so the server sees a stream of chunks, not one.
        const bytes = Buffer.from(body);
        for (let at = 0; at < bytes.length; at += 16 * 1024) req.write(bytes.subarray(at, at + 16 * 1024));
        req.end();
      } else {
        req.end(body);
      }
    });
}

export interface TestTokens {
  /** The SLUICE_TOKENS value: names, sha256 hashes and scopes, never the tokens. */
  env: string;
  read: string;
  write: string;
  admin: string;
  /** Holds all three scopes. */
  all: string;
}

export function testTokens(): TestTokens {
  const token = () => randomBytes(24).toString('base64url');
  const tokens = { read: token(), write: token(), admin: token(), all: token() };
  const scopes = { read: ['read'], write: ['write'], admin: ['admin'], all: ['read', 'write', 'admin'] };
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const env = JSON.stringify(
    (Object.keys(tokens) as Array<keyof typeof tokens>).map((name) => ({
      name,
      sha256: sha256(tokens[name]),
      scopes: scopes[name],
    })),
  );
  return { env, ...tokens };
}
