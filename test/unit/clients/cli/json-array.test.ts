import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { jsonArrayElements } from '../../../../clients/typescript/src/cli/json-array.ts';

/** The elements of the array the chunks make up, read as `sluice load` reads a .json file. */
async function elements(chunks: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const element of jsonArrayElements(Readable.from(chunks.map((c) => Buffer.from(c))))) {
    out.push(element);
  }
  return out;
}

describe('a JSON array read as a stream', () => {
  it('splits elements at top-level commas only, across chunk boundaries, strings and escapes included', async () => {
    expect(await elements(['[{"a":1,"b":"x,]}"},', '{"c":[1,2]}', ' ,3, "s\\"]"]'])).toEqual([
      { a: 1, b: 'x,]}' },
      { c: [1, 2] },
      3,
      's"]',
    ]);
    // A multi-byte character split between two chunks is one character.
    const bytes = Buffer.from('[{"city":"Zürich"}]');
    const split = bytes.indexOf(0xc3) + 1;
    const out: unknown[] = [];
    for await (const e of jsonArrayElements(Readable.from([bytes.subarray(0, split), bytes.subarray(split)])))
      out.push(e);
    expect(out).toEqual([{ city: 'Zürich' }]);
    expect(await elements([' [ \n', ' ] \n'])).toEqual([]);
  });

  it('names the element that is not JSON, and a file that is not an array, does not close it or closes what it never opened', async () => {
    // An element that is not JSON comes out in its place, and the array goes on after it.
    const [one, bad, three] = await elements(['[1, {"a": }, 3]']);
    expect([one, three]).toEqual([1, 3]);
    expect(bad).toMatchObject({ element: 2, message: expect.stringMatching(/^not JSON/) });
    expect((await elements(['[1,]']))[1]).toMatchObject({
      element: 2,
      message: expect.stringMatching(/^not JSON/),
    });
    await expect(elements(['{"a": 1}'])).rejects.toMatchObject({ element: 0, message: /not a JSON array/ });
    await expect(elements(['[1,2'])).rejects.toMatchObject({ element: 2, message: /not closed/ });
    await expect(elements(['[1] 2'])).rejects.toMatchObject({ message: /more after the array/ });
    await expect(elements(['[1}'])).rejects.toMatchObject({ element: 1, message: /a } closes no object/ });
    await expect(elements(['[{"id":1}}'])).rejects.toMatchObject({
      element: 1,
      message: /a } closes no object/,
    });
    expect(await elements(['\ufeff[{"id":1}]'])).toEqual([{ id: 1 }]);
  });
});
