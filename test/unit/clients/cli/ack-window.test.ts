/** The load's window: batches acked out of order are reported in order, never more than `width` ahead. */
import { describe, expect, it } from 'vitest';
import { AckWindow } from '../../../../clients/typescript/src/cli/ack-window.ts';

interface Pending {
  index: number;
  resolve: (value: string) => void;
  reject: (error: Error) => void;
}

function controlledSends() {
  const pending: Pending[] = [];
  const send = (item: { index: number }) =>
    new Promise<string>((resolve, reject) => pending.push({ index: item.index, resolve, reject }));
  const ack = (index: number) => pending.find((p) => p.index === index)!.resolve(`ack-${index}`);
  return { pending, send, ack };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('AckWindow', () => {
  it('reports acks in index order and sends nothing beyond the window', async () => {
    const { pending, send, ack } = controlledSends();
    const reported: string[] = [];
    const window = new AckWindow(10, 3, send, async (item, result) => {
      reported.push(`${item.index}:${result}`);
    });
    for (const index of [10, 11, 12]) await window.push({ index });
    let fourthSent = false;
    const fourth = window.push({ index: 13 }).then(() => {
      fourthSent = true;
    });
    ack(12);
    ack(11);
    await tick();
    expect(reported).toEqual([]);
    expect(fourthSent).toBe(false);
    expect(pending.map((p) => p.index)).toEqual([10, 11, 12]);
    ack(10);
    await fourth;
    expect(pending.map((p) => p.index)).toEqual([10, 11, 12, 13]);
    ack(13);
    await window.drain();
    expect(reported).toEqual(['10:ack-10', '11:ack-11', '12:ack-12', '13:ack-13']);
  });

  it('throws the first failure, and reports nothing after the failed batch', async () => {
    const { pending, send, ack } = controlledSends();
    const reported: number[] = [];
    const window = new AckWindow(0, 2, send, async (item) => {
      reported.push(item.index);
    });
    await window.push({ index: 0 });
    await window.push({ index: 1 });
    const third = window.push({ index: 2 });
    pending[0]!.reject(new Error('refused'));
    await expect(third).rejects.toThrow('refused');
    ack(1);
    await expect(window.drain()).rejects.toThrow('refused');
    expect(reported).toEqual([]);
  });
});
