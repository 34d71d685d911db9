/**
 * The project's S3 test server itself, spoken to with the AWS SDK as any client would: the
 * conditional writes decided atomically, the listing S3 serves (and the one S3 Express
 * serves), the store that ignores conditions, and each scripted fault. The rest of the
 * suite trusts it to behave like S3 where Sluice and Lance depend on S3.
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { type S3ServerOptions, type S3TestServer, startS3Server } from '../support/s3-server.ts';

let server: S3TestServer | null = null;

async function started(options: S3ServerOptions = {}) {
  server = await startS3Server(options);
  const client = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: server.credentials,
    maxAttempts: 1,
  });
  return { s3: server, client, Bucket: server.bucket };
}

afterEach(async () => {
  await server?.stop();
  server = null;
});

/** The HTTP status an SDK call ended with (200 when it succeeded), or the network error's code. */
async function statusOf(call: Promise<unknown>): Promise<number | string> {
  try {
    await call;
    return 200;
  } catch (err) {
    const e = err as { $metadata?: { httpStatusCode?: number }; code?: string; name?: string };
    return e.$metadata?.httpStatusCode ?? e.code ?? e.name ?? 'unknown';
  }
}

describe('the S3 test server', () => {
  it('of 20 concurrent put-if-absent on one key exactly one lands; the rest get 412', async () => {
    const { client, Bucket } = await started();
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        statusOf(client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: `v${i}`, IfNoneMatch: '*' }))),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(19);
  });

  it('If-Match: a wrong ETag is 412, a missing key 404, the right one replaces', async () => {
    const { client, Bucket } = await started();
    const { ETag } = await client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'a' }));
    expect(
      await statusOf(client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'b', IfMatch: '"x"' }))),
    ).toBe(412);
    expect(
      await statusOf(client.send(new PutObjectCommand({ Bucket, Key: 'nope', Body: 'b', IfMatch: ETag }))),
    ).toBe(404);
    expect(
      await statusOf(client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'c', IfMatch: ETag }))),
    ).toBe(200);
    const got = await client.send(new GetObjectCommand({ Bucket, Key: 'k', Range: 'bytes=-1' }));
    expect(await got.Body!.transformToString()).toBe('c');
  });

  it('a multipart upload completed with If-None-Match loses to an object already there', async () => {
    const { client, Bucket } = await started();
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: 'big' }));
    const part = await client.send(
      new UploadPartCommand({ Bucket, Key: 'big', UploadId, PartNumber: 1, Body: 'xyz' }),
    );
    await client.send(new PutObjectCommand({ Bucket, Key: 'big', Body: 'first' }));
    const complete = new CompleteMultipartUploadCommand({
      Bucket,
      Key: 'big',
      UploadId,
      IfNoneMatch: '*',
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    });
    expect(await statusOf(client.send(complete))).toBe(412);
  });

  it('lists in byte order with a delimiter, start-after and continuation tokens', async () => {
    const { client, Bucket } = await started();
    const keys = ['a/1', 'a/2', 'b', 'c/x/1', 'é', 'z'];
    for (const Key of [...keys].reverse())
      await client.send(new PutObjectCommand({ Bucket, Key, Body: Key }));
    const seen: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket,
          Delimiter: '/',
          MaxKeys: 2,
          ContinuationToken,
          StartAfter: 'a/1',
        }),
      );
      seen.push(
        ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!),
        ...(page.Contents ?? []).map((c) => c.Key!),
      );
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    expect(seen.sort()).toEqual(['a/', 'b', 'c/', 'z', 'é'].sort());
    const flat = await client.send(new ListObjectsV2Command({ Bucket }));
    expect(flat.Contents!.map((c) => c.Key)).toEqual(['a/1', 'a/2', 'b', 'c/x/1', 'z', 'é']);
  });

  it('express mode lists in no key order and refuses StartAfter, as directory buckets do', async () => {
    const { client, Bucket } = await started({ express: true });
    const keys = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    for (const Key of keys) await client.send(new PutObjectCommand({ Bucket, Key, Body: Key }));
    const listed: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, MaxKeys: 7, ContinuationToken }));
      listed.push(...page.Contents!.map((c) => c.Key!));
      ContinuationToken = page.NextContinuationToken;
    } while (ContinuationToken);
    expect([...listed].sort()).toEqual(keys);
    expect(listed).not.toEqual(keys);
    expect(await statusOf(client.send(new ListObjectsV2Command({ Bucket, StartAfter: 'k05' })))).toBe(400);
  });

  it('a store that ignores conditions takes a second put-if-absent', async () => {
    const { client, Bucket } = await started({ ignoresConditions: true });
    await client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'a', IfNoneMatch: '*' }));
    expect(
      await statusOf(client.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'b', IfNoneMatch: '*' }))),
    ).toBe(200);
  });

  it('injects each fault where its rule says: failures, a lost answer after the write, a reset before it, latency', async () => {
    const { s3, client, Bucket } = await started();
    const put = (Key: string) =>
      client.send(new PutObjectCommand({ Bucket, Key, Body: Key, IfNoneMatch: '*' }));
    const exists = async (Key: string) =>
      (await statusOf(client.send(new GetObjectCommand({ Bucket, Key })))) === 200;
    await s3.setFaults({
      rules: [
        { ops: ['putIfAbsent'], key: 'slow/*', fault: 'slowDown' },
        { ops: ['putIfAbsent'], key: 'broken/*', fault: 'internalError', times: 1 },
        { ops: ['putIfAbsent'], key: 'conflict/*', fault: 'conditionalConflict' },
        { ops: ['putIfAbsent'], key: 'lost/*', fault: 'lostAnswer' },
        { ops: ['putIfAbsent'], key: 'reset/*', fault: 'reset' },
        { ops: ['get'], key: 'late', latency: { fixedMs: 300 } },
      ],
    });
    expect(await statusOf(put('slow/1'))).toBe(503);
    expect(await statusOf(put('broken/1'))).toBe(500);
    expect(await statusOf(put('broken/2'))).toBe(200);
    expect(await statusOf(put('conflict/1'))).toBe(409);
    expect(await statusOf(put('lost/1'))).not.toBe(200);
    expect(await statusOf(put('reset/1'))).not.toBe(200);
    expect([await exists('slow/1'), await exists('lost/1'), await exists('reset/1')]).toEqual([
      false,
      true,
      false,
    ]);
    await client.send(new PutObjectCommand({ Bucket, Key: 'late', Body: 'x' }));
    const began = performance.now();
    await client.send(new GetObjectCommand({ Bucket, Key: 'late' }));
    expect(performance.now() - began).toBeGreaterThanOrEqual(290);
    const { injected } = await s3.stats();
    expect(injected.map((f) => f.fault).sort()).toEqual(
      ['conditionalConflict', 'internalError', 'lostAnswer', 'reset', 'slowDown'].sort(),
    );
  });
});
