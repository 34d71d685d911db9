/**
 * The elements of a JSON array read as a stream, each parsed on its own: a file of millions
 * of rows is never held whole. The splitter only tracks strings and nesting to find the
 * commas between top-level elements; `JSON.parse` judges each element, and an element it
 * refuses comes out as a JsonArrayError in its place (the array goes on after it). A file
 * whose brackets do not pair is thrown: nothing after that point can be told apart.
 */
import type { Readable } from 'node:stream';

export class JsonArrayError extends Error {
  /** The element it concerns, from 1; 0 when the file is not an array at all. */
  constructor(
    message: string,
    readonly element: number,
  ) {
    super(message);
  }
}

type State = 'before' | 'between' | 'element' | 'after';

export async function* jsonArrayElements(stream: Readable): AsyncGenerator<unknown> {
  stream.setEncoding('utf8');
  let state = 'before' as State;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let text = '';
  let element = 0;
  const parse = (): unknown => {
    element++;
    try {
      return JSON.parse(text);
    } catch (err) {
      return new JsonArrayError(`not JSON: ${(err as Error).message}`, element);
    }
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    const parsed: unknown[] = [];
    let start = state === 'element' ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (state === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
          continue;
        }
        if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if (c === '}' && depth === 0) {
          throw new JsonArrayError('not JSON: a } closes no object', element + 1);
        } else if (c === '}' || c === ']') {
          if (depth === 0) {
            text += chunk.slice(start, i);
            parsed.push(parse());
            text = '';
            state = 'after';
            continue;
          }
          depth--;
        } else if (c === ',' && depth === 0) {
          text += chunk.slice(start, i);
          parsed.push(parse());
          text = '';
          state = 'between';
        }
        continue;
      }
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t' || (c === '\ufeff' && state === 'before'))
        continue;
      if (state === 'before') {
        if (c !== '[') throw new JsonArrayError(`not a JSON array: it starts with ${JSON.stringify(c)}`, 0);
        state = 'between';
      } else if (state === 'between') {
        if (c === ']' && element === 0) state = 'after';
        else {
          // The element starts here: read this character again as its first.
          state = 'element';
          start = i;
          depth = 0;
          i--;
        }
      } else if (state === 'after') {
        throw new JsonArrayError(`more after the array's closing bracket: ${JSON.stringify(c)}`, element);
      }
    }
    if (state === 'element') text += chunk.slice(start);
    yield* parsed;
  }
  if (state !== 'after')
    throw new JsonArrayError('the array is not closed (the file ends inside it)', element + 1);
}
