/**
 * The chaos run's look at the base itself: LanceDB opens each table's base dataset at the
 * Lance version the newest base manifest records — with nothing of Sluice's read path in
 * between — and its rows are held against what the API answered once everything merged:
 * the same keys with the same values, each once.
 */
import { tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import { BASE_TABLE_NAME, datasetLocation } from '../../shared/base/dataset-location.ts';
import { fromLanceArrow, lanceDb } from '../../shared/base/lance-module.ts';
import type { Config } from '../../shared/config.ts';
import { openStore } from '../../shared/store/open-store.ts';
import { baseManifestPrefix } from '../../shared/table/paths.ts';
import { APPEND_TABLE, type AppendRow, appendRowOf } from './appends.ts';
import type { FinalRow } from './history.ts';
import type { KeyShape } from './key-shapes.ts';

export interface BaseCheck {
  /** Rows compared in the base. */
  rows: number;
  problems: string[];
}

/** `final`: every live row of the shape's table as the API read it after the run settled. */
export async function checkBase(
  config: Config,
  shape: KeyShape,
  final: readonly FinalRow[],
): Promise<BaseCheck> {
  const version = await recordedVersion(config, shape.table);
  if (version === null) {
    return { rows: 0, problems: final.length > 0 ? [`base of ${shape.table}: nothing recorded`] : [] };
  }
  const { uri, storageOptions } = datasetLocation(config, shape.table);
  const db = await lanceDb().connect(uri, { storageOptions });
  const base = await db.openTable(BASE_TABLE_NAME);
  await base.checkout(version);
  const schema = parseTableSchema({ fields: shape.schema.fields }, shape.schema.primaryKey);
  const rows = tableToJsonRows(schema, fromLanceArrow(await base.query().toArrow())).map((row) => ({
    k: shape.idOfRow(row),
    v: (row.v as string | null) ?? null,
  }));
  base.close();
  const problems: string[] = [];
  const inBase = new Map<string, string | null>();
  for (const row of rows) {
    if (inBase.has(row.k)) problems.push(`base of ${shape.table}: key ${row.k} twice at version ${version}`);
    inBase.set(row.k, row.v);
  }
  for (const row of final) {
    if (!inBase.has(row.k))
      problems.push(`base of ${shape.table}: key ${row.k} missing at version ${version}`);
    else if (inBase.get(row.k) !== row.v) {
      problems.push(`base of ${shape.table}: key ${row.k} holds ${inBase.get(row.k)}, the API ${row.v}`);
    }
  }
  const live = new Set(final.map((r) => r.k));
  for (const k of inBase.keys()) {
    if (!live.has(k)) problems.push(`base of ${shape.table}: key ${k} deleted or never written, still there`);
  }
  return { rows: rows.length, problems };
}

/**
 * The append-only table's base, as LanceDB reads it at the recorded version: the same rows
 * as the API's final scan, each as often (every append once), with the added column's values.
 */
export async function checkAppendBase(config: Config, final: readonly AppendRow[]): Promise<BaseCheck> {
  const version = await recordedVersion(config, APPEND_TABLE);
  if (version === null) {
    return { rows: 0, problems: final.length > 0 ? [`base of ${APPEND_TABLE}: nothing recorded`] : [] };
  }
  const { uri, storageOptions } = datasetLocation(config, APPEND_TABLE);
  const db = await lanceDb().connect(uri, { storageOptions });
  const base = await db.openTable(BASE_TABLE_NAME);
  await base.checkout(version);
  const rows = fromLanceArrow(await base.query().select(['w', 'i', 'tag']).toArrow())
    .toArray()
    .map((row) => appendRowOf(row.toJSON()));
  base.close();
  const counts = new Map<string, number>();
  const name = (row: AppendRow) => JSON.stringify([row.w, row.i, row.tag]);
  for (const row of rows) counts.set(name(row), (counts.get(name(row)) ?? 0) + 1);
  for (const row of final) counts.set(name(row), (counts.get(name(row)) ?? 0) - 1);
  const problems = [...counts]
    .filter(([, n]) => n !== 0)
    .map(
      ([row, n]) =>
        `base of ${APPEND_TABLE}: row ${row} ${n > 0 ? `${n} more` : `${-n} fewer`} time(s) than the API at version ${version}`,
    );
  return { rows: rows.length, problems };
}

async function recordedVersion(config: Config, table: string): Promise<number | null> {
  const store = openStore({ ...config, storeFaultPlan: undefined });
  try {
    let newest: string | undefined;
    for await (const page of store.list(baseManifestPrefix(table))) newest = page.at(-1)?.key ?? newest;
    const object = newest ? await store.get(newest) : null;
    if (!object) return null;
    return (JSON.parse(Buffer.from(object.body).toString('utf8')) as { lanceVersion: number | null })
      .lanceVersion;
  } finally {
    await store.close();
  }
}
