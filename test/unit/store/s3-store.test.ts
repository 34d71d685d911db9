import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { S3Store } from '../../../shared/store/s3-store.ts';

type Responder = (req: IncomingMessage, res: ServerResponse) => void;

function s3Error(status: number, code: string): Responder {
  return (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>m</Message></Error>`,
      );
    });
  };
}

describe('S3 store error mapping', () => {
  let server: Server;
  let respond: Responder;
  let requests: number;
  let store: S3Store;

  beforeEach(async () => {
    requests = 0;
    server = createServer((req, res) => {
      requests += 1;
      respond(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    store = new S3Store({
      bucket: 'bucket',
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      conditionalDeadlineMs: 300,
    });
  });
  afterEach(async () => {
    await store.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const body = new Uint8Array([1, 2, 3]);

  it('412 PreconditionFailed → PRECONDITION_FAILED', async () => {
    respond = s3Error(412, 'PreconditionFailed');
    await expect(store.putIfAbsent('k', body)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it('404 NoSuchKey on If-Match (the object is gone) → PRECONDITION_FAILED', async () => {
    respond = s3Error(404, 'NoSuchKey');
    await expect(store.putIfMatch('k', body, 'etag')).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it('409 ConditionalRequestConflict, past the put deadline → STORE_CONFLICT, which a retry can clear', async () => {
    respond = s3Error(409, 'ConditionalRequestConflict');
    await expect(store.putIfMatch('k', body, 'etag')).rejects.toMatchObject({
      code: 'STORE_CONFLICT',
      retryable: true,
    });
    expect(requests).toBeGreaterThan(1);
  });

  it('503 SlowDown, past the put deadline → STORE_UNAVAILABLE, retryable', async () => {
    respond = s3Error(503, 'SlowDown');
    await expect(store.putIfAbsent('k', body)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      retryable: true,
    });
  });

  it('NoSuchBucket → INVALID_CONFIG, not a missing object', async () => {
    respond = s3Error(404, 'NoSuchBucket');
    await expect(store.get('k')).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });

  it('tries a conditional put whose connection is cut again, once per try, until its deadline: then STORE_UNAVAILABLE', async () => {
    respond = (req) => req.socket.destroy();
    const began = performance.now();
    await expect(store.putIfAbsent('k', body)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(requests).toBeGreaterThan(1);
    expect(performance.now() - began).toBeLessThan(5_000);
  });

  it('an aborted request → ABORTED', async () => {
    respond = () => {};
    await expect(store.get('k', { signal: AbortSignal.timeout(50) })).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});
