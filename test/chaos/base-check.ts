/**
 * The chaos run's look at the base itself: LanceDB opens each table's base dataset at the
 * Lance version the newest base manifest records — with nothing of Sluice's read path in
 * between — and its rows are held against what the API answered once everything merged:
 * the same keys with the same values, each once.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tableToJsonRows } from '../../shared/arrow/json-rows.ts';
import { parseTableSchema } from '../../shared/arrow/schema.ts';
import { fromLanceArrow, lanceDb } from '../../shared/base/lance-module.ts';
import { baseManifestPrefix } from '../../shared/table/paths.ts';
import type { FinalRow } from './history.ts';
import type { KeyShape } from './key-shapes.ts';

export interface BaseCheck {
  /** Rows compared in the base. */
  rows: number;
  problems: string[];
}

/** `final`: every live row of the shape's table as the API read it after the run settled. */
export async function checkBase(
  storeDir: string,
  shape: KeyShape,
  final: readonly FinalRow[],
): Promise<BaseCheck> {
  const version = await recordedVersion(storeDir, shape.table);
  if (version === null) {
    return { rows: 0, problems: final.length > 0 ? [`base of ${shape.table}: nothing recorded`] : [] };
  }
  const db = await lanceDb().connect(join(storeDir, 'tables', shape.table));
  const base = await db.openTable('base');
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

async function recordedVersion(storeDir: string, table: string): Promise<number | null> {
  const dir = join(storeDir, baseManifestPrefix(table));
  const names = (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.json')).sort();
  const newest = names.at(-1);
  if (!newest) return null;
  return (JSON.parse(await readFile(join(dir, newest), 'utf8')) as { lanceVersion: number | null })
    .lanceVersion;
}
