import { makeData, RecordBatch, type Schema, Struct } from 'apache-arrow';
import { SluiceError } from '../errors.ts';

/**
 * The same column buffers under another schema made of a subset of the batch's columns,
 * found by name; nothing is copied. Nullability comes from `schema`.
 */
export function selectColumns(schema: Schema, batch: RecordBatch): RecordBatch {
  const children = schema.fields.map((field) => {
    const index = batch.schema.fields.findIndex((f) => f.name === field.name);
    const child = batch.data.children[index];
    if (index < 0 || !child) throw new SluiceError('INTERNAL', `rows have no column "${field.name}"`);
    return child;
  });
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}
