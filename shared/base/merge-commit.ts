/**
 * The Lance side of a merge: bring the dataset's latest version back to the recorded one,
 * then commit the change — the removal of every deleted key and the newest row of every
 * upserted key. The commits are "clean" only when each landed right on the version before
 * it: then nothing else was committed in between, and the last one's content is the
 * recorded content plus this change. Only a clean commit may be recorded
 * (see docs/base-table.md, "The merge watermark").
 */
import type { Table } from 'apache-arrow';
import type { KeyValue } from '../arrow/key-codec.ts';
import { keyColumns } from '../arrow/schema.ts';
import { isAppendOnly, type TableDef } from '../table/table-def.ts';
import type { BaseDatasets } from './base-datasets.ts';
import { keysPredicates } from './key-predicate.ts';
import { isCommitConflict, type LanceCommit } from './lance-commits.ts';
import { type LanceTable, toLanceArrow } from './lance-module.ts';

export interface BaseChange {
  /** Rows in the table's own schema: one per key, or on an append-only table every row to add. */
  upserts: Table;
  /** Keys to remove, none of them among the upserts. */
  deletes: KeyValue[][];
}

export interface PreparedBase {
  handle: LanceTable;
  /** The latest version, whose content is the recorded one. */
  on: number;
  /** The unrecorded commits that were undone to get there, oldest first. */
  rolledBack: LanceCommit[];
}

/**
 * A version no manifest records is either a commit whose record was lost (its content is
 * redone by this merge), a zombie's (its content must not survive), or one that changed
 * no row (an index built, fragments compacted, by Sluice or beside it). The last kind is
 * kept; if any other kind is among them, the latest version is set back to the recorded
 * content before anything builds on it (docs/base-table.md, "Commits Sluice did not record").
 */
export async function prepareBase(
  datasets: BaseDatasets,
  table: TableDef,
  recorded: number | null,
): Promise<PreparedBase> {
  const handle = await datasets.openForWrite(table);
  if (recorded === null) {
    // Nothing was ever recorded, so the recorded content is empty.
    if ((await handle.countRows()) > 0) await handle.delete('true');
    return { handle, on: await handle.version(), rolledBack: [] };
  }
  const latest = await handle.version();
  const unrecorded = latest > recorded ? await datasets.commits(table, recorded, latest) : [];
  if (latest === recorded || unrecorded.every((c) => c.effect === 'layout')) {
    return { handle, on: latest, rolledBack: [] };
  }
  await handle.checkout(recorded);
  await handle.restore();
  return { handle, on: await handle.version(), rolledBack: unrecorded };
}

/**
 * Commits `change` on the prepared version: the deletes (a delete filtered on the key,
 * which Lance answers from the key index, one per bounded filter), then the upserts (a
 * `mergeInsert` on the key; on an append-only table an `add`, which is exact only because the
 * prepared version holds the recorded content and no earlier attempt's rows).
 * Two commits, not `mergeInsert`'s own `whenNotMatchedBySourceDelete`: that one joins the
 * whole base to find rows missing from the source, so its cost grows with the base
 * (docs/base-table.md, "The merge watermark"). Clean when each landed right on the one
 * before it; not clean either when Lance refused one for a commit that landed meanwhile (an
 * overwrite or a restore, by another delivery of the merge or beside Sluice), which the
 * caller handles alike. Null when there is nothing to commit.
 */
export async function commitChange(
  table: TableDef,
  prepared: PreparedBase,
  change: BaseChange,
): Promise<{ version: number; clean: boolean } | null> {
  if (change.upserts.numRows === 0 && change.deletes.length === 0) return null;
  let on = prepared.on;
  let clean = true;
  try {
    for (const where of keysPredicates(keyColumns(table.schema), change.deletes)) {
      const { version } = await prepared.handle.delete(where);
      clean &&= version === on + 1;
      on = version;
    }
    if (change.upserts.numRows > 0) {
      const { version } = await commitRows(table, prepared.handle, change.upserts);
      clean &&= version === on + 1;
      on = version;
    }
  } catch (err) {
    if (!isCommitConflict(err)) throw err;
    clean = false;
  }
  return { version: on, clean };
}

function commitRows(table: TableDef, handle: LanceTable, rows: Table): Promise<{ version: number }> {
  if (isAppendOnly(table)) return handle.add(toLanceArrow(rows));
  return handle
    .mergeInsert([...table.schema.primaryKey])
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .execute(toLanceArrow(rows));
}
