/**
 * Arrow conversion and IPC throughput at 1k and 100k rows of int64 + utf8 + float64 +
 * vector[float32, 16]. Each case with a baseline measures it in the same run:
 * - json-to-arrow: Sluice's hand-built column buffers (with full validation) against
 *   `vectorFromArray` per column (no validation at all);
 * - ipc-stream-decode: Sluice's checked decode (framing, schema, buffers) against a plain
 *   `tableFromIPC`;
 * - arrow-to-json: Sluice's JSON-safe rows against `toArray()` + `toJSON()`.
 */
import { makeData, RecordBatch, Struct, Table, tableFromIPC, vectorFromArray } from 'apache-arrow';
import {
  decodeArrowStreamForTable,
  decodeIpc,
  encodeIpcFile,
  encodeIpcStream,
} from '../../shared/arrow/ipc.ts';
import { jsonRowsToTable, tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema, type TableSchema, toArrowSchema } from '../../shared/arrow/schema.ts';
import { type BenchResult, measure, progress, type Timing } from './measure.ts';

const DIM = 16;
const SIZES = [1_000, 100_000];

const schema = parseTableSchema(
  {
    fields: [
      { name: 'id', type: 'int64' },
      { name: 'name', type: 'utf8', nullable: true },
      { name: 'score', type: 'float64', nullable: true },
      { name: 'embedding', type: `vector[float32, ${DIM}]`, nullable: true },
    ],
  },
  ['id'],
);

interface Row {
  id: number;
  name: string;
  score: number;
  embedding: number[];
}

function makeRows(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i * 7 + 1,
    name: `customer-${i.toString(36).padStart(8, '0')}-${(i * 2654435761) % 1_000_000}`,
    score: (i % 1000) / 7,
    embedding: Array.from({ length: DIM }, (_, j) => ((i + j) % 97) / 97),
  }));
}

/** The usual way to get JSON rows into Arrow: one `vectorFromArray` per column. */
function viaVectorFromArray(tableSchema: TableSchema, rows: readonly Row[]): Table {
  const arrow = toArrowSchema(tableSchema);
  const columns = [
    vectorFromArray(
      rows.map((r) => BigInt(r.id)),
      arrow.fields[0]!.type,
    ),
    vectorFromArray(
      rows.map((r) => r.name),
      arrow.fields[1]!.type,
    ),
    vectorFromArray(
      rows.map((r) => r.score),
      arrow.fields[2]!.type,
    ),
    vectorFromArray(
      rows.map((r) => r.embedding),
      arrow.fields[3]!.type,
    ),
  ];
  const data = makeData({
    type: new Struct(arrow.fields),
    length: rows.length,
    children: columns.map((c) => c.data[0]!),
  });
  return new Table([new RecordBatch(arrow, data)]);
}

/** `bytes`: the IPC size a case reads or writes, to report MB/s beside rows/s. */
function result(caseName: string, system: string, rows: number, timing: Timing, bytes?: number): BenchResult {
  const rowsPerSec = Math.round((rows * timing.runs) / timing.seconds);
  const throughput =
    bytes === undefined ? {} : { bytes, mbPerSec: Math.round((bytes * timing.runs) / timing.seconds / 1e6) };
  progress(`arrow ${caseName} ${system}: ${rowsPerSec.toLocaleString('en-US')} rows/s (${timing.runs} runs)`);
  return {
    bench: 'arrow',
    case: caseName,
    system,
    rows,
    vectorDim: DIM,
    ...timing,
    rowsPerSec,
    ...throughput,
  };
}

function compared(sluice: BenchResult, baseline: BenchResult): BenchResult {
  const ratio = (sluice.rowsPerSec as number) / (baseline.rowsPerSec as number);
  return { ...sluice, baseline: baseline.system, ratioToBaseline: Math.round(ratio * 100) / 100 };
}

export async function* run(): AsyncIterable<BenchResult> {
  for (const size of SIZES) {
    const rows = makeRows(size);
    const table = jsonRowsToTable(schema, rows);
    const stream = encodeIpcStream(table);
    const file = encodeIpcFile(table);
    const of = (name: string, system: string, fn: () => unknown, bytes?: number) =>
      result(`${name}-${size}rows`, system, size, measure(fn), bytes);

    const toArrowBase = of('json-to-arrow', 'baseline-vectorFromArray', () =>
      viaVectorFromArray(schema, rows),
    );
    yield toArrowBase;
    yield compared(
      of('json-to-arrow', 'sluice', () => jsonRowsToTable(schema, rows)),
      toArrowBase,
    );

    yield of('ipc-stream-encode', 'sluice', () => encodeIpcStream(table), stream.length);
    const decodeBase = of(
      'ipc-stream-decode',
      'baseline-tableFromIPC',
      () => tableFromIPC(stream),
      stream.length,
    );
    yield decodeBase;
    yield compared(
      of('ipc-stream-decode', 'sluice', () => decodeArrowStreamForTable(schema, stream), stream.length),
      decodeBase,
    );

    yield of('ipc-file-encode', 'sluice', () => encodeIpcFile(table), file.length);
    yield of('ipc-file-decode', 'sluice', () => decodeIpc(file), file.length);

    const toJsonBase = of('arrow-to-json', 'baseline-toArray', () =>
      table.toArray().map((row) => row.toJSON()),
    );
    yield toJsonBase;
    yield compared(
      of('arrow-to-json', 'sluice', () => tableToJsonRows(schema, table)),
      toJsonBase,
    );
  }
}
