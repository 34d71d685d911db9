/**
 * The base dataset on S3 (the suite's S3-protocol server, which honours conditional
 * puts): under the store's key prefix, with the SLUICE_S3_* settings, readable from
 * LanceDB directly, and safe under concurrent Lance commits.
 */
import { createRequire } from 'node:module';
import type * as SluiceLance from '@sluice/lance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../runtime/runtime.ts';
import { jsonRowsToRecordBatch } from '../../shared/arrow/json-rows.ts';
import { datasetLocation } from '../../shared/base/dataset-location.ts';
import { type Config, loadConfig } from '../../shared/config.ts';
import { createLogger } from '../../shared/log.ts';
import { tablePrefix } from '../../shared/table/paths.ts';
import { createRedisNamespace, type RedisNamespace } from '../support/redis.ts';
import { eventRows, eventsTable, inKeyOrder, lookupJson, readAll } from '../support/rows.ts';
import { type S3TestServer, startS3Server } from '../support/s3-server.ts';

const { lancedb, arrow } = createRequire(import.meta.url)('@sluice/lance') as typeof SluiceLance;

describe('the base dataset on S3', () => {
  let s3: S3TestServer;
  let namespace: RedisNamespace;
  let config: Config;
  let runtime: Runtime;

  beforeAll(async () => {
    s3 = await startS3Server();
    namespace = createRedisNamespace();
    config = loadConfig(
      {},
      {
        redisUrl: namespace.url,
        redisPrefix: namespace.prefix,
        storeUrl: `s3://${s3.bucket}/deploy/one`,
        s3: {
          endpoint: s3.endpoint,
          region: s3.region,
          forcePathStyle: true,
          accessKeyId: s3.credentials.accessKeyId,
          secretAccessKey: s3.credentials.secretAccessKey,
        },
        logLevel: 'silent',
      },
    );
    runtime = openRuntime(config, createLogger({ level: 'silent' }));
  });
  afterAll(async () => {
    await runtime.close();
    await namespace.cleanup();
    await s3.stop();
  });

  it('merges into tables/{t}/base.lance under the key prefix; Sluice and LanceDB both read it', async () => {
    const { sluice } = runtime;
    const def = await sluice.tables.create(eventsTable('ons3', { shards: 2 }));
    await sluice.writes.append('ons3', jsonRowsToRecordBatch(def.schema, eventRows(1, 30, 1)));
    await sluice.writes.delete('ons3', [4]);
    for (let shard = 0; shard < 2; shard++) {
      await sluice.shards.seal('ons3', shard);
      await sluice.shards.flush('ons3', shard);
    }
    expect((await sluice.tableWork.merge('ons3')).merged).toHaveLength(2);
    const expected = [...eventRows(1, 3, 1), ...eventRows(5, 30, 1)];
    expect(await readAll(sluice, 'ons3', 7)).toEqual(expected);
    expect(await lookupJson(sluice, 'ons3', 17)).toEqual(eventRows(17, 17, 1)[0]);

    const keys: string[] = [];
    for await (const page of runtime.parts.store.list(`${tablePrefix('ons3')}base.lance/_versions/`))
      keys.push(...page.map((m) => m.key));
    expect(keys.length).toBeGreaterThan(0);

    const { uri, storageOptions } = datasetLocation(config, 'ons3');
    expect(uri).toBe(`s3://${s3.bucket}/deploy/one/tables/ons3`);
    const table = await (await lancedb.connect(uri, { storageOptions })).openTable('base');
    const rows = (await table.query().toArray()) as Array<Record<string, unknown>>;
    const json = rows.map((r) => ({ id: Number(r.id), name: r.name, value: r.value })) as never;
    expect(inKeyOrder(def.schema, json)).toEqual(expected);
  });

  it('two Lance commits racing for the same version both land (Lance commits with a put-if-absent)', async () => {
    const { uri, storageOptions } = datasetLocation(config, 'racing');
    const db = await lancedb.connect(uri, { storageOptions });
    const schema = new arrow.Schema([new arrow.Field('id', new arrow.Int64(), false)]);
    const created = await db.createEmptyTable('base', schema);
    const [a, b] = [await db.openTable('base'), await db.openTable('base')];
    const batch = (ids: number[]) =>
      new arrow.Table({ id: arrow.vectorFromArray(ids.map(BigInt), new arrow.Int64()) });
    await Promise.all([a.add(batch([1, 2])), b.add(batch([3]))]);
    await created.checkoutLatest();
    expect(await created.countRows()).toBe(3);
    const ids = ((await created.query().toArray()) as Array<{ id: bigint }>).map((r) => Number(r.id)).sort();
    expect(ids).toEqual([1, 2, 3]);
  });
});
