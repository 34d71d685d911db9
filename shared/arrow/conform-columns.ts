/**
 * Rows stored under an older schema of their table, read under a newer one (docs/design.md,
 * "Schema evolution"): a schema only grows by nullable columns, so a column the rows lack
 * reads as null. The columns they have are passed on as they are, nothing copied.
 */

import type { Data, DataType } from 'apache-arrow';
import { makeBuilder, makeData, RecordBatch, type Schema, Struct, Table } from 'apache-arrow';
import { SluiceError } from '../errors.ts';

export function conformColumns(schema: Schema, batch: RecordBatch): RecordBatch {
  const children = schema.fields.map((field) => {
    const index = batch.schema.fields.findIndex((f) => f.name === field.name);
    const child = index < 0 ? undefined : batch.data.children[index];
    if (child) return child;
    if (!field.nullable) throw new SluiceError('INTERNAL', `rows have no column "${field.name}"`);
    return nulls(field.type, batch.numRows);
  });
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}

/** `table` under `schema`, or `table` itself when it has those columns already. */
export function conformTable(schema: Schema, table: Table): Table {
  const same =
    table.schema.fields.length === schema.fields.length &&
    schema.fields.every((f, i) => table.schema.fields[i]!.name === f.name);
  if (same) return table;
  return new Table(
    schema,
    table.batches.map((b) => conformColumns(schema, b)),
  );
}

function nulls(type: DataType, length: number): Data {
  const builder = makeBuilder({ type, nullValues: [null] });
  for (let i = 0; i < length; i++) builder.append(null);
  return builder.finish().flush();
}
