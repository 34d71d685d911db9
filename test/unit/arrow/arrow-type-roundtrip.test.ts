/**
 * Rows built for a table and rows read back from its stored files must have the same Arrow
 * types, or reads that gather rows of both (takeRows) refuse them as different columns.
 */
import { describe, expect, it } from 'vitest';
import { decodeIpc, encodeIpcFile } from '../../../shared/arrow/ipc.ts';
import { jsonRowsToRecordBatch } from '../../../shared/arrow/json-rows.ts';
import { parseTableSchema, toArrowSchema } from '../../../shared/arrow/schema.ts';
import { takeRows } from '../../../shared/arrow/take.ts';
import { fullRow, sampleCreate } from '../../support/sample-table.ts';

describe('Arrow types survive a round trip through IPC', () => {
  const create = sampleCreate();
  const schema = parseTableSchema(create.schema, create.primaryKey);

  it('every column type of a table decodes to the type the table builds', () => {
    const built = jsonRowsToRecordBatch(schema, [fullRow(1)]);
    const [decoded] = decodeIpc(encodeIpcFile(built)).batches;
    const gathered = takeRows([built, decoded!], [0, 1]);
    expect(gathered.numRows).toBe(2);
    expect(gathered.schema.fields.map((f) => String(f.type))).toEqual(
      toArrowSchema(schema).fields.map((f) => String(f.type)),
    );
  });
});
