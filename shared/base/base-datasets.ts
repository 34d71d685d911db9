/**
 * Handles on the base datasets of a process. A writer handle is opened fresh for every
 * merge or optimize (it must start at the latest version); a read handle is checked out at
 * one version and never moves, so concurrent reads of that version can share it.
 */
import { Table } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { toArrowSchema } from '../arrow/schema.ts';
import type { Config } from '../config.ts';
import { SluiceError } from '../errors.ts';
import type { TableDef } from '../table/table-def.ts';
import { BASE_TABLE_NAME, datasetLocation } from './dataset-location.ts';
import { type LanceTable, lancedb, toLanceArrow } from './lance-module.ts';

const READ_HANDLES = 64;

export class BaseDatasets {
  private readonly pinned = new LRUCache<string, Promise<LanceTable>>({
    max: READ_HANDLES,
    dispose: (handle) => {
      handle.then((t) => t.close()).catch(() => undefined);
    },
  });

  constructor(private readonly config: Pick<Config, 'storeUrl' | 's3'>) {}

  /** The dataset at its latest version, created with the table's schema, key and key index when absent. */
  async openForWrite(table: TableDef): Promise<LanceTable> {
    const { uri, storageOptions } = datasetLocation(this.config, table.name);
    const db = await lancedb.connect(uri, { storageOptions });
    if ((await db.tableNames()).includes(BASE_TABLE_NAME)) return db.openTable(BASE_TABLE_NAME);
    const created = await db.createEmptyTable(BASE_TABLE_NAME, lanceSchema(table), { existOk: true });
    await created.setUnenforcedPrimaryKey([...table.schema.primaryKey]);
    if (table.schema.primaryKey.length === 1) {
      await created.createIndex(table.schema.primaryKey[0]!, { config: lancedb.Index.btree() });
    }
    return created;
  }

  /** A read-only handle at `version`, shared by every read of that version. */
  at(table: TableDef, version: number): Promise<LanceTable> {
    const id = `${table.name}@${version}`;
    const known = this.pinned.get(id);
    if (known) return known;
    const opening = this.openAt(table, version);
    this.pinned.set(id, opening);
    opening.catch(() => this.pinned.delete(id));
    return opening;
  }

  private async openAt(table: TableDef, version: number): Promise<LanceTable> {
    const { uri, storageOptions } = datasetLocation(this.config, table.name);
    const db = await lancedb.connect(uri, { storageOptions });
    const handle = await db.openTable(BASE_TABLE_NAME);
    try {
      await handle.checkout(version);
    } catch (err) {
      throw new SluiceError(
        'DATA_MISSING',
        `base version ${version} of ${table.name} is gone; start the read again`,
        { table: table.name, version },
        { cause: err },
      );
    }
    return handle;
  }
}

/** The table's own columns and types, as LanceDB's Arrow spells them: no internal column. */
function lanceSchema(table: TableDef) {
  return toLanceArrow(new Table(toArrowSchema(table.schema))).schema;
}
