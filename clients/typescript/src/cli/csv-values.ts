/**
 * CSV cells (always text) as the JSON values the API takes for each column type. int64 and
 * timestamps stay text: the API takes decimal strings (and ISO-8601 for timestamps), so no
 * digit is lost. An empty cell is null in a nullable column that is not utf8. A cell that
 * does not read as its type is passed on as it is, for the server to refuse with the row
 * and column named.
 */
import type { Row } from '../types.ts';

export interface Column {
  name: string;
  type: string;
  nullable: boolean;
}

type Convert = (text: string) => unknown;

const asNumber: Convert = (text) => {
  const value = Number(text);
  return text.trim() !== '' && Number.isFinite(value) ? value : text;
};

const asBool: Convert = (text) => {
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  return text;
};

const asJson: Convert = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const asText: Convert = (text) => text;

function converterOf(type: string): Convert {
  if (type === 'int32' || type === 'float32' || type === 'float64') return asNumber;
  if (type === 'bool') return asBool;
  if (type.startsWith('vector')) return asJson;
  return asText;
}

export function csvRowConverter(columns: readonly Column[]): (record: Record<string, string>) => Row {
  const byName = new Map(
    columns.map((c) => [
      c.name,
      { convert: converterOf(c.type), nullIfEmpty: c.nullable && c.type !== 'utf8' },
    ]),
  );
  return (record) => {
    const row: Row = {};
    for (const [name, text] of Object.entries(record)) {
      const column = byName.get(name);
      if (!column) row[name] = text;
      else row[name] = text === '' && column.nullIfEmpty ? null : column.convert(text);
    }
    return row;
  };
}
