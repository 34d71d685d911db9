/**
 * How far one run of background work (a flush, a merge) has come, in the rows and bytes of
 * its inputs: what its job reports as it goes and logs when it ends.
 */
export interface WorkProgress {
  rowsDone: number;
  rowsTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export type OnWorkProgress = (progress: WorkProgress) => void;

/** Progress over `inputs` of which the first `done` are finished. */
export function progressOf(
  inputs: ReadonlyArray<{ rows: number; bytes: number }>,
  done: number,
): WorkProgress {
  const sum = (items: ReadonlyArray<{ rows: number; bytes: number }>, key: 'rows' | 'bytes') =>
    items.reduce((total, item) => total + item[key], 0);
  const finished = inputs.slice(0, done);
  return {
    rowsDone: sum(finished, 'rows'),
    rowsTotal: sum(inputs, 'rows'),
    bytesDone: sum(finished, 'bytes'),
    bytesTotal: sum(inputs, 'bytes'),
  };
}

export function isWorkProgress(value: unknown): value is WorkProgress {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return ['rowsDone', 'rowsTotal', 'bytesDone', 'bytesTotal'].every((key) => typeof record[key] === 'number');
}
