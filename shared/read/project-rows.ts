/**
 * Turns rows found in WAL entries and L0 files (which carry `_sluice_op` and, in L0,
 * `_sluice_key`) into one record batch of the table's own schema, in the order asked.
 */
import { type RecordBatch, Table } from 'apache-arrow';
import { toArrowSchema } from '../arrow/schema.ts';
import { selectColumns } from '../arrow/select-columns.ts';
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
      for (const batch of ref.batches) sources.push(selectColumns(schema, batch));
    }
    indices[i] = offset + ref.position;
  });
  if (sources.length === 0) return new Table(schema);
  return new Table([takeRows(sources, indices)]);
}
