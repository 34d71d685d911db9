import { describe, expect, it } from 'vitest';
import { overlayOrder, seekKey } from '../../../shared/read/overlay-order.ts';
import type { SortedRun } from '../../../shared/read/sorted-run.ts';

/** A run of these keys (sorted byte strings), the ones in `deleted` deletes. */
function run(keys: number[][], deleted: number[][] = []): SortedRun {
  const bytes = keys.map((k) => Uint8Array.from(k));
  const deletes = new Set(deleted.map((k) => k.join()));
  return {
    size: bytes.length,
    batches: [],
    key: (i) => bytes[i]!,
    isDelete: (i) => deletes.has(keys[i]!.join()),
    position: (i) => i,
  };
}

describe("a snapshot's overlay in key order", () => {
  it('holds each key once, from its newest run, in byte order, without the keys a newer delete hides', () => {
    const runs = [
      run([[1], [3, 0], [255]], [[3, 0]]),
      run([[0, 255], [1], [3], [3, 0]]),
      run([[0], [1], [2, 1], [255]]),
    ];
    const order = overlayOrder(runs);
    expect(order.keys).toEqual(['00', '00ff', '01', '0201', '03', 'ff']);
    expect([...order.runs]).toEqual([2, 1, 0, 2, 1, 0]);
    expect([...order.rows]).toEqual([0, 0, 0, 2, 2, 2]);
  });

  it('is empty without runs, and a key is sought at or after it', () => {
    expect(overlayOrder([]).keys).toEqual([]);
    const order = overlayOrder([run([[1], [3], [5]])]);
    expect(seekKey(order, '03')).toBe(1);
    expect(seekKey(order, '03', true)).toBe(2);
    expect(seekKey(order, '04')).toBe(2);
    expect(seekKey(order, '06')).toBe(3);
  });
});
