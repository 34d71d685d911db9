import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Field,
  FixedSizeList,
  Float32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  vectorFromArray,
} from 'apache-arrow';
import { ensureRedis } from '../infra/local/redis.ts';
import { openRuntime } from '../runtime/runtime.ts';
import { lanceDb, queryRows } from '../shared/base/lance-module.ts';
import { loadConfig } from '../shared/config.ts';
import { createLogger, silentLogger } from '../shared/log.ts';
import { FsStore } from '../shared/store/fs-store.ts';

const DIM = 128,
  ROWS = Number(process.env.ROWS ?? 300000),
  BATCH = 10000;
const dir = await mkdtemp('/tmp/dbg-');
const redis = await ensureRedis('redis://127.0.0.1:6379', silentLogger);
const config = loadConfig(
  {},
  { redisUrl: redis.url, redisPrefix: `dbg-${process.pid}`, storeUrl: `file://${dir}`, logLevel: 'silent' },
);
const runtime = openRuntime(config, createLogger({ level: 'silent' }), new FsStore(dir));
const schema = new Schema([
  new Field('id', new Int64(), false),
  new Field('emb', new FixedSizeList(DIM, new Field('item', new Float32(), true)), false),
]);
await runtime.sluice.tables.create({
  name: 'v',
  schema: {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'emb', type: `vector[float32, ${DIM}]` },
    ],
  },
  primaryKey: ['id'],
  shards: 1,
  indexes: [{ column: 'emb', type: 'ivf_pq', metric: 'l2' }],
});
for (let from = 0; from < ROWS; from += BATCH) {
  const n = BATCH;
  const values = Float32Array.from({ length: n * DIM }, () => Math.random() * 2 - 1);
  const child = makeData({ type: new Float32(), length: values.length, data: values });
  const emb = makeData({ type: schema.fields[1]!.type as FixedSizeList, length: n, child });
  const ids = vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i))).data[0]!;
  await runtime.sluice.writes.append(
    'v',
    new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, children: [ids, emb] })),
  );
  if ((from / BATCH) % 10 === 9) {
    await runtime.sluice.shards.seal('v', 0);
    await runtime.sluice.shards.flush('v', 0);
  }
}
await runtime.sluice.shards.seal('v', 0);
await runtime.sluice.shards.flush('v', 0);
while ((await runtime.sluice.tableWork.merge('v')).merged.length > 0);
await runtime.sluice.tableWork.optimize('v');
const { lanceVersion } = await runtime.parts.bases.read('v');
const lance = await (await lanceDb().connect(join(dir, 'tables', 'v'))).openTable('base');
await lance.checkout(lanceVersion!);
let same = 0;
for (let i = 0; i < 10; i++) {
  const q = Float32Array.from({ length: DIM }, () => Math.random() * 2 - 1);
  const { rows } = await runtime.sluice.reads.search('v', {
    vector: [...q],
    k: 10,
    columns: ['id'],
    nprobes: 40,
    refineFactor: 10,
  });
  const a = [...rows.getChild('id')!].map(Number).join(',');
  const b = (
    await queryRows(
      lance.vectorSearch(q).column('emb').nprobes(40).refineFactor(10).select(['id', '_distance']).limit(10),
    )
  )
    .flatMap((x) => [...x.getChild('id')!].map(Number))
    .join(',');
  if (a === b) same++;
  else console.log('DIFF\n', a, '\n', b, [...rows.getChild('_distance')!].slice(0, 3));
}
console.log(
  'same',
  same,
  'of 10; indices',
  (await lance.listIndices()).map((i) => `${i.name}:${i.numIndexedRows}/${i.numUnindexedRows}`).join(' '),
);
const h = await runtime.parts.datasets.at(await runtime.sluice.tables.describe('v'), lanceVersion!);
console.log('sluice handle version', await h.version(), 'lance', await lance.version());
await runtime.close();
await redis.stop();
