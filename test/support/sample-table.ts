/**
 * One table that uses every column type, and rows for it, shared by the Arrow and table
 * tests so each of them exercises the whole type list.
 */
import { TableSettingsSchema } from '../../shared/config.ts';

export const defaultSettings = TableSettingsSchema.parse({});

export const sampleFields = [
  { name: 'id', type: 'int64' },
  { name: 'count', type: 'int32', nullable: false },
  { name: 'big', type: 'int64', nullable: true },
  { name: 'ratio', type: 'float64', nullable: true },
  { name: 'small', type: 'float32', nullable: true },
  { name: 'ok', type: 'bool', nullable: true },
  { name: 'label', type: 'utf8', nullable: true },
  { name: 'blob', type: 'binary', nullable: true },
  { name: 'at', type: 'timestamp[ms]', nullable: true },
  { name: 'at_us', type: 'timestamp[us]', nullable: true },
  { name: 'emb', type: 'vector[float32, 3]', nullable: true },
];

export function sampleCreate(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'events', schema: { fields: sampleFields }, primaryKey: ['id'], ...overrides };
}

/** A row with every column set, `i` varying the values. */
export function fullRow(i: number): Record<string, unknown> {
  return {
    id: i,
    count: i % 1000,
    big: String(2n ** 60n + BigInt(i)),
    ratio: i / 7,
    small: 0.5 * i,
    ok: i % 2 === 0,
    label: `row-${i}-é-😀`,
    blob: Buffer.from([i & 0xff, 0, 255]).toString('base64'),
    at: 1_700_000_000_000 + i,
    at_us: 1_700_000_000_000_000 + i,
    emb: [i, -i, 0.25],
  };
}
