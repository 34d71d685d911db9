/**
 * When a lone pending generation is worth a table built in the background
 * (shared/search/pending-tables.ts, `worthAlone`): when it gets a vector index or a graph
 * the search will ask; otherwise it would be the table a search builds on its path.
 */
import { describe, expect, it } from 'vitest';
import { PendingTables } from '../../../shared/search/pending-tables.ts';
import type { TableDef } from '../../../shared/table/table-def.ts';

const indexed = { indexes: [{ column: 'emb', type: 'ivf_pq', metric: 'l2' }] } as unknown as TableDef;
const plain = { indexes: [{ column: 'body', type: 'fts' }] } as unknown as TableDef;

describe('a lone generation worth a table of its own', () => {
  const tables = new PendingTables(1024 * 1024, 10_000);

  it('is any one whose graph a search asks', () => {
    expect(tables.worthAlone(indexed, 1, true)).toBe(true);
  });

  it('is, when no search asks graphs, one of enough rows for a vector index', () => {
    expect(tables.worthAlone(indexed, 9_999, false)).toBe(false);
    expect(tables.worthAlone(indexed, 10_000, false)).toBe(true);
  });

  it('is none in a table with no vector index', () => {
    expect(tables.worthAlone(plain, 1_000_000, true)).toBe(false);
  });
});
