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
import type { ObjectStore } from '../store/object-store.ts';
import type { TableDef } from '../table/table-def.ts';
import { type BaseHealth, measureBase } from './base-health.ts';
import { BASE_TABLE_NAME, datasetLocation } from './dataset-location.ts';
import { commitsBetween, type LanceCommit } from './lance-commits.ts';
import { type LanceTable, lanceDb, toLanceArrow } from './lance-module.ts';

const READ_HANDLES = 64;

export class BaseDatasets {
  private readonly pinned = new LRUCache<string, Promise<LanceTable>>({
    max: READ_HANDLES,
    dispose: (handle) => {
      handle.then((t) => t.close()).catch(() => undefined);
    },
  });

  /** One session for every handle, so Lance's index and metadata caches are bounded per process. */
  private session: InstanceType<ReturnType<typeof lanceDb>['Session']> | null = null;

  /** `store` is the one the datasets live in, read for what each version's commit did. */
  constructor(
    private readonly config: Pick<Config, 'storeUrl' | 's3' | 'limits'>,
    private readonly store: ObjectStore,
  ) {}

  /** The commits that made versions `after + 1` through `through` of the table's base, oldest first. */
  commits(table: TableDef, after: number, through: number, signal?: AbortSignal): Promise<LanceCommit[]> {
    return commitsBetween(this.store, table.name, after, through, signal);
  }

  private connect(table: TableDef) {
    const { uri, storageOptions } = datasetLocation(this.config, table.name);
    const db = lanceDb();
    const bytes = BigInt(this.config.limits.readCacheBytes);
    this.session ??= new db.Session(bytes, bytes);
    return db.connect(uri, { storageOptions, session: this.session });
  }

  /**
   * The dataset at its latest version, created with the table's schema when absent, and
   * with its unenforced primary key and key index set (each once: a creator that died
   * between the steps leaves them to the next writer).
   */
  async openForWrite(table: TableDef): Promise<LanceTable> {
    const db = await this.connect(table);
    let handle: LanceTable;
    try {
      handle = await db.openTable(BASE_TABLE_NAME);
    } catch {
      // Absent, or being created by a concurrent writer: creating again fails, and then it exists.
      handle = await db
        .createEmptyTable(BASE_TABLE_NAME, lanceSchema(table))
        .catch(() => db.openTable(BASE_TABLE_NAME));
    }
    await withSetupRetries(table, async () => {
      await handle.checkoutLatest();
      await ensureKey(handle, table);
    });
    return handle;
  }

  /** The latest version's fragments and index coverage; null while the table has no base yet. */
  async health(table: TableDef): Promise<BaseHealth | null> {
    const db = await this.connect(table);
    if (!(await db.tableNames()).includes(BASE_TABLE_NAME)) return null;
    const handle = await db.openTable(BASE_TABLE_NAME);
    try {
      return await measureBase(handle);
    } finally {
      handle.close();
    }
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

  /**
   * A read of `version` failed: when the version is gone (an optimize removed it), that is
   * DATA_MISSING and its handle is dropped; anything else is the failure as it came.
   */
  async explainReadFailure(table: TableDef, version: number, err: unknown): Promise<unknown> {
    const db = await this.connect(table);
    const versions = await (await db.openTable(BASE_TABLE_NAME)).listVersions();
    if (versions.some((v) => v.version === version)) return err;
    this.pinned.delete(`${table.name}@${version}`);
    return missingVersion(table, version, err);
  }

  private async openAt(table: TableDef, version: number): Promise<LanceTable> {
    const db = await this.connect(table);
    const handle = await db.openTable(BASE_TABLE_NAME);
    try {
      await handle.checkout(version);
    } catch (err) {
      throw missingVersion(table, version, err);
    }
    return handle;
  }
}

function missingVersion(table: TableDef, version: number, cause: unknown): SluiceError {
  return new SluiceError(
    'DATA_MISSING',
    `base version ${version} of ${table.name} is gone; start the read again`,
    { table: table.name, version },
    { cause },
  );
}

const SETUP_ATTEMPTS = 4;

/** Two writers setting the key up at once: Lance refuses the second commit; it looks again. */
async function withSetupRetries(table: TableDef, step: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= SETUP_ATTEMPTS) {
        throw new SluiceError(
          'STORE_CONFLICT',
          `setting up the base of ${table.name} kept conflicting`,
          {
            table: table.name,
          },
          { cause: err },
        );
      }
    }
  }
}

async function ensureKey(handle: LanceTable, table: TableDef): Promise<void> {
  const key = table.schema.primaryKey;
  const fields = (await handle.schema()).fields;
  // LanceDB refuses a compound unenforced primary key ("compound primary keys are not
  // supported"), so a composite key is Sluice's alone; merges match on its columns all the same.
  if (key.length !== 1) return;
  if (!fields.some((f) => f.metadata.has(PRIMARY_KEY_MARK))) await handle.setUnenforcedPrimaryKey([...key]);
  const indexed = (await handle.listIndices()).some((i) => i.columns.length === 1 && i.columns[0] === key[0]);
  if (!indexed) await handle.createIndex(key[0]!, { config: lanceDb().Index.btree() });
}

/** The unenforced primary key is kept as this field metadata (its value: the column's place in the key). */
const PRIMARY_KEY_MARK = 'lance-schema:unenforced-primary-key:position';

/** The table's own columns and types, as LanceDB's Arrow spells them: no internal column. */
function lanceSchema(table: TableDef) {
  return toLanceArrow(new Table(toArrowSchema(table.schema))).schema;
}
