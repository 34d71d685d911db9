import { describe, expect, it } from 'vitest';
import { parseTableSchema } from '../../../shared/arrow/schema.ts';
import { evolveSchema, parseSchemaChange } from '../../../shared/table/schema-change.ts';

describe('parseSchemaChange: a change sent again', () => {
  const v1 = parseTableSchema(
    {
      fields: [
        { name: 'id', type: 'int64' },
        { name: 'n', type: 'int32', nullable: true },
      ],
    },
    ['id'],
  );
  const withDefault = { add: [{ name: 'c', type: 'int32', nullable: false, default: 5 }] };
  const v2 = evolveSchema(v1, parseSchemaChange(withDefault, v1)!);

  it('the same change again changes nothing', () => {
    expect(parseSchemaChange(withDefault, v2)).toBeNull();
  });

  it('a column of a taken name with another default is refused, not answered as done (the default would silently stay 5)', () => {
    expect(() =>
      parseSchemaChange({ add: [{ name: 'c', type: 'int32', nullable: false, default: 7 }] }, v2),
    ).toThrow(expect.objectContaining({ code: 'INVALID_SCHEMA_CHANGE' }));
    expect(() => parseSchemaChange({ add: [{ name: 'c', type: 'int32', nullable: false }] }, v2)).toThrow(
      expect.objectContaining({ code: 'INVALID_SCHEMA_CHANGE' }),
    );
  });
});
