/**
 * `sluice search <table> --vector '[…]' | --vector-file f.json | --text '…' [--filter '…']
 * [-k 10] [--format table|json|csv]`: the search's rows, best first, to stdout — an aligned
 * table (vectors shortened), JSON lines, or CSV in the forms `sluice load` reads back.
 */
import { readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { SluiceClient } from '../client.ts';
import type { SearchBody } from '../types.ts';
import { textTable } from './text-table.ts';
import { UsageError } from './usage-error.ts';

export type SearchFormat = 'table' | 'json' | 'csv';

export interface SearchChoice {
  vector?: string;
  vectorFile?: string;
  text?: string;
  filter?: string;
  k: number;
  columns?: string[];
  column?: string;
  textColumn?: string;
  metric?: SearchBody['metric'];
}

/** Vector components shown in a table cell before the rest is elided. */
const SHOWN = 4;

export async function search(
  client: SluiceClient,
  table: string,
  format: SearchFormat,
  choice: SearchChoice,
  out: Writable = process.stdout,
): Promise<void> {
  const { rows } = await client.search(table, await bodyOf(choice));
  if (format === 'json') {
    out.write(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    return;
  }
  const columns = rows.length > 0 ? Object.keys(rows[0]!) : (choice.columns ?? []);
  if (format === 'csv') {
    const cells = rows.map((row) => columns.map((name) => cellOf(row[name])));
    return pipeline(cells, stringify({ header: true, columns, cast: { boolean: String } }), out);
  }
  const lines = rows.map((row) => columns.map((name) => shown(row[name])));
  out.write(`${textTable([columns, ...lines])}\n`);
}

async function bodyOf(choice: SearchChoice): Promise<SearchBody> {
  const given = [choice.vector, choice.vectorFile, choice.text].filter((v) => v !== undefined).length;
  if (given > 1) throw new UsageError('search by one of --vector, --vector-file or --text');
  const vector = choice.vectorFile !== undefined ? await readFile(choice.vectorFile, 'utf8') : choice.vector;
  return {
    ...(vector === undefined ? {} : { vector: vectorOf(vector, choice.vectorFile ?? '--vector') }),
    ...(choice.text === undefined ? {} : { text: choice.text }),
    ...(choice.filter === undefined ? {} : { filter: choice.filter }),
    ...(choice.columns === undefined ? {} : { columns: choice.columns }),
    ...(choice.column === undefined ? {} : { column: choice.column }),
    ...(choice.textColumn === undefined ? {} : { textColumn: choice.textColumn }),
    ...(choice.metric === undefined ? {} : { metric: choice.metric }),
    k: choice.k,
  };
}

function vectorOf(text: string, from: string): number[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'number')) {
    throw new UsageError(`${from}: send the vector as a JSON array of numbers, e.g. [0.1, 0.2, 0.3]`);
  }
  return value;
}

function cellOf(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

function shown(value: unknown): string {
  if (Array.isArray(value) && value.length > SHOWN) {
    return `[${value.slice(0, SHOWN).join(', ')}, … ${value.length - SHOWN} more]`;
  }
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
