/**
 * Every index declared on a table: those of its create body (in `table.json`, which never
 * changes) and those declared since, kept in `tables/{t}/indexes.json` and appended to with
 * a compare-and-swap, so two declarations at once both land or the second is told
 * INDEX_EXISTS. Each one is validated again whenever it is read.
 */
import { isSluiceError, SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { type IndexDecl, parseIndexDecl } from './index-decl.ts';
import { tableIndexesKey } from './paths.ts';
import type { TableDef } from './table-def.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Later {
  decls: IndexDecl[];
  etag: string | null;
}

export class IndexDeclarations {
  constructor(private readonly store: ObjectStore) {}

  async all(table: TableDef, signal?: AbortSignal): Promise<IndexDecl[]> {
    return [...table.indexes, ...(await this.later(table, signal)).decls];
  }

  /** Declares the index `input` describes; INVALID_INDEX or INDEX_EXISTS, and nothing stored, when it cannot be. */
  async declare(table: TableDef, input: unknown, signal?: AbortSignal): Promise<IndexDecl> {
    const decl = parseIndexDecl(input, table.schema);
    for (;;) {
      const later = await this.later(table, signal);
      if ([...table.indexes, ...later.decls].some((d) => d.column === decl.column)) {
        throw new SluiceError('INDEX_EXISTS', `${decl.column} has a declared index already`, {
          column: decl.column,
        });
      }
      const body = encoder.encode(JSON.stringify({ indexes: [...later.decls, decl] }));
      try {
        if (later.etag === null) await this.store.putIfAbsent(tableIndexesKey(table.name), body, { signal });
        else await this.store.putIfMatch(tableIndexesKey(table.name), body, later.etag, { signal });
        return decl;
      } catch (err) {
        // Another declaration landed first: look again.
        if (!isSluiceError(err, 'PRECONDITION_FAILED')) throw err;
      }
    }
  }

  private async later(table: TableDef, signal?: AbortSignal): Promise<Later> {
    const stored = await this.store.get(tableIndexesKey(table.name), { signal });
    if (!stored) return { decls: [], etag: null };
    const { indexes } = JSON.parse(decoder.decode(stored.body)) as { indexes: unknown[] };
    return { decls: indexes.map((input) => parseIndexDecl(input, table.schema)), etag: stored.meta.etag };
  }
}
