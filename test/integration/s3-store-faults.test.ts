/**
 * The S3 store against S3's transient faults, injected by the S3 test server: conditional
 * puts tried again and settled by reading back, timeouts that fire, and the whole write
 * path — WAL, seal, flush, merge into Lance — through 503s and lost answers on every PUT.
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { datasetLocation } from '../../shared/base/dataset-location.ts';
import { S3Store } from '../../shared/store/s3-store.ts';
import { eventRows, eventsTable, pendingGenerations, readAll } from '../support/rows.ts';
import { openS3Runtime } from '../support/s3-runtime.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';

const { lancedb } = createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;

let server: S3TestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

function storeOn(s3: S3TestServer, options: Partial<ConstructorParameters<typeof S3Store>[0]> = {}) {
  return new S3Store({
    bucket: s3.bucket,
    prefix: 'p/',
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: s3.credentials,
    ...options,
  });
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** `step` until it succeeds, as a job's retries would, at most `tries` times. */
async function eventually<T>(step: () => Promise<T>, tries = 40): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= tries) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('the S3 store under S3 faults', () => {
  it('a conditional put tried again after 503, 500 and 409 lands once; a real conflict stays a conflict', async () => {
    server = await startS3Server();
    const store = storeOn(server);
    await server.setFaults({
      rules: [
        { ops: ['putIfAbsent'], key: 'p/a', fault: 'slowDown', times: 2 },
        { ops: ['putIfAbsent'], key: 'p/b', fault: 'internalError', times: 1 },
        { ops: ['putIfMatch'], key: 'p/a', fault: 'conditionalConflict', times: 2 },
      ],
    });
    const a = await store.putIfAbsent('a', bytes('a1'));
    await store.putIfAbsent('b', bytes('b1'));
    await store.putIfMatch('a', bytes('a2'), a.etag);
    expect(new TextDecoder().decode((await store.get('a'))!.body)).toBe('a2');
    await expect(store.putIfAbsent('a', bytes('a3'))).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect((await server.stats()).injected).toHaveLength(5);
    await store.close();
  });

  it('a put-if-absent whose answer was lost is settled as its own by reading back, never a false conflict', async () => {
    server = await startS3Server();
    const store = storeOn(server);
    await server.setFaults({
      rules: [{ ops: ['putIfAbsent', 'putIfMatch'], fault: 'lostAnswer', times: 2 }],
    });
    const first = await store.putIfAbsent('lost', bytes('mine'));
    expect(first.size).toBe(4);
    await store.putIfMatch('lost', bytes('mine again'), first.etag);
    expect(new TextDecoder().decode((await store.get('lost'))!.body)).toBe('mine again');
    await expect(store.putIfAbsent('lost', bytes('theirs'))).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await store.close();
  });

  it('a request that outlasts the request timeout fails, and a put stops trying at its deadline', async () => {
    server = await startS3Server();
    const store = storeOn(server, { requestTimeoutMs: 300, conditionalDeadlineMs: 500 });
    await store.put('slow', bytes('x'));
    await server.setFaults({
      rules: [
        { ops: ['get'], key: 'p/slow', latency: { fixedMs: 3_000 } },
        { ops: ['putIfAbsent'], fault: 'slowDown' },
      ],
    });
    const began = performance.now();
    await expect(store.get('slow')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(performance.now() - began).toBeLessThan(2_500);
    await expect(store.putIfAbsent('never', bytes('x'))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await store.close();
  });

  it('one signal over many requests at once, as a flush reads a generation: every one answered, and Node warns of no leak', async () => {
    server = await startS3Server();
    const store = storeOn(server);
    const keys = Array.from({ length: 40 }, (_, i) => `entry-${i}`);
    await Promise.all(keys.map((key) => store.put(key, bytes(key))));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { signal } = new AbortController();
      const read = await Promise.all(keys.map((key) => store.get(key, { signal })));
      expect(read.map((o) => new TextDecoder().decode(o!.body))).toEqual(keys);
      // Node emits its warnings on a later turn.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      await store.close();
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });

  it('with 5% 503s and 2% lost answers on every PUT, Lance included: ≥95% acked, every acked row read back, all merged, LanceDB opens the base', async () => {
    server = await startS3Server();
    const opened = openS3Runtime(server);
    try {
      const { sluice } = opened.runtime;
      const def = await sluice.tables.create(eventsTable('faulty', { shards: 2 }));
      await server.setFaults({
        seed: 7,
        rules: [
          { ops: ['put', 'putIfAbsent', 'putIfMatch', 'multipart'], fault: 'slowDown', probability: 0.05 },
          { ops: ['put', 'putIfAbsent', 'putIfMatch', 'multipart'], fault: 'lostAnswer', probability: 0.02 },
          // Lance's own commits meet it for certain: its first two version manifests' answers are lost.
          { ops: ['putIfAbsent'], key: '**/base.lance/_versions/*', fault: 'lostAnswer', times: 2 },
        ],
      });
      const acked: number[] = [];
      for (let write = 0; write < 200; write++) {
        const rows = eventRows(write * 10 + 1, write * 10 + 10, 1);
        await sluice.writes.append('faulty', jsonRowsToRecordBatch(def.schema, rows)).then(
          () => acked.push(write),
          () => undefined,
        );
      }
      expect(acked.length).toBeGreaterThanOrEqual(190);
      for (let round = 0; (await pendingGenerations(sluice, 'faulty')) > 0 || round === 0; round++) {
        for (let shard = 0; shard < 2; shard++) {
          await eventually(() => sluice.shards.seal('faulty', shard));
          await eventually(() => sluice.shards.flush('faulty', shard));
        }
        await eventually(() => sluice.tableWork.merge('faulty'));
        expect(round).toBeLessThan(10);
      }
      const rows = await eventually(() => readAll(sluice, 'faulty', 500));
      const ids = new Set(rows.map((r) => r.id));
      const missing = acked
        .flatMap((w) => eventRows(w * 10 + 1, w * 10 + 10).map((r) => r.id))
        .filter((id) => !ids.has(id));
      expect(missing).toEqual([]);
      const injected = (await server.stats()).injected;
      expect(injected.some((f) => f.key.includes('/base.lance/'))).toBe(true);
      await server.setFaults({ rules: [] });
      const { uri, storageOptions } = datasetLocation(opened.config, 'faulty');
      const base = await (await lancedb.connect(uri, { storageOptions })).openTable('base');
      await base.checkout((await opened.runtime.parts.bases.read('faulty')).lanceVersion!);
      expect(await base.countRows()).toBe(rows.length);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
