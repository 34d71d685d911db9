/**
 * What a key may look like, in every store. The rules are those a file-system path needs
 * to stay inside its root, applied to S3 too, so code that runs against one store runs
 * unchanged against the other.
 */
import { SluiceError } from '../errors.ts';

/** First segment reserved for the file store's temp and lock files. */
export const RESERVED_SEGMENT = '.tmp';

/** S3's limit on a key. */
const MAX_KEY_BYTES = 1024;
/** NAME_MAX of the common file systems: one segment becomes one file or directory name. */
const MAX_SEGMENT_BYTES = 255;

export function assertValidKey(key: string): void {
  const problem = key === '' ? 'it is empty' : (textProblem(key) ?? segmentsProblem(key.split('/')));
  if (problem) throw invalid('key', key, problem);
}

/** A list prefix: whole segments like a key's, then any partial last segment (or none). */
export function assertValidPrefix(prefix: string): void {
  const segments = prefix.split('/');
  const partial = segments.pop() ?? '';
  const problem = textProblem(prefix) ?? segmentsProblem(segments) ?? segmentBytesProblem(partial);
  if (problem) throw invalid('prefix', prefix, problem);
}

/** Ascending key order of S3 listings: UTF-8 bytes, not UTF-16 code units. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function textProblem(text: string): string | undefined {
  if (Buffer.byteLength(text, 'utf8') > MAX_KEY_BYTES) return `it is longer than ${MAX_KEY_BYTES} bytes`;
  if (text.startsWith('/')) return 'it is an absolute path';
  if (text.includes('\\')) return 'it contains a backslash';
  if (text.includes('\0')) return 'it contains a NUL character';
  return undefined;
}

function segmentsProblem(segments: readonly string[]): string | undefined {
  for (const [index, segment] of segments.entries()) {
    if (segment === '') return 'it has an empty path segment';
    if (segment === '.' || segment === '..') return `it has a "${segment}" path segment`;
    if (index === 0 && segment === RESERVED_SEGMENT) return `"${RESERVED_SEGMENT}/" is reserved`;
    const tooLong = segmentBytesProblem(segment);
    if (tooLong) return tooLong;
  }
  return undefined;
}

function segmentBytesProblem(segment: string): string | undefined {
  return Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES
    ? `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`
    : undefined;
}

function invalid(what: 'key' | 'prefix', value: string, problem: string): SluiceError {
  return new SluiceError('INVALID_REQUEST', `invalid object ${what} ${JSON.stringify(value)}: ${problem}`, {
    [what]: value,
  });
}
