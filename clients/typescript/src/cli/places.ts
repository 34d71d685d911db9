/**
 * Where a row is in the file a load reads, counted from the file's start: its line in CSV
 * and JSON lines (so an editor's "go to line" finds it), its row number in Arrow, Parquet
 * and JSON arrays, whose rows have no lines of their own.
 */
export type PlaceUnit = 'line' | 'row';

/** `data.csv:12346`, `flights.parquet: row 12345`. */
export function placeOf(file: string, unit: PlaceUnit, place: number): string {
  return unit === 'line' ? `${file}:${place}` : `${file}: row ${place}`;
}

/** `data.csv:2-5001`, `flights.parquet: rows 1-5000`: a batch's rows, for a refusal of them all. */
export function spanOf(file: string, unit: PlaceUnit, first: number, last: number): string {
  return unit === 'line' ? `${file}:${first}-${last}` : `${file}: rows ${first}-${last}`;
}
