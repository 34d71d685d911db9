/**
 * Turns rows found in WAL entries and L0 files (which carry `_sluice_op` and, in L0,
 * `_sluice_key`) into one record batch of the table's own schema, in the order asked.
 */
import { makeData, RecordBatch, type Schema, Struct, Table } from 'apache-arrow';
import { toArrowSchema } from '../arrow/schema.ts';
import { takeRows } from '../arrow/take.ts';
import type { TableDef } from '../table/table-def.ts';

export interface RowRef {
  batches: readonly RecordBatch[];
  position: number;
}

export function projectRows(table: TableDef, refs: readonly RowRef[]): Table {
  const schema = toArrowSchema(table.schema);
  const sources: RecordBatch[] = [];
  const offsets = new Map<readonly RecordBatch[], number>();
  const indices = new Int32Array(refs.length);
  refs.forEach((ref, i) => {
    let offset = offsets.get(ref.batches);
    if (offset === undefined) {
      offset = sources.reduce((sum, b) => sum + b.numRows, 0);
      offsets.set(ref.batches, offset);
      for (const batch of ref.batches) sources.push(relabel(schema, batch));
    }
    indices[i] = offset + ref.position;
  });
  if (sources.length === 0) return new Table(schema);
  return new Table([takeRows(sources, indices)]);
}

/** The same column buffers under the table's schema; nothing is copied. */
function relabel(schema: Schema, batch: RecordBatch): RecordBatch {
  const children = schema.fields.map((field) => {
    const index = batch.schema.fields.findIndex((f) => f.name === field.name);
    return batch.data.children[index]!;
  });
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}
