/**
 * A request part parsed by the wire schema the OpenAPI document is built from: a mismatch is
 * a 400 whose message says what is wrong and, for a body, what to send instead.
 */
import { z } from '@hono/zod-openapi';
import { type ErrorCode, SluiceError } from '../../shared/errors.ts';

export interface Refusal {
  /** What to send instead, appended to the message. */
  send?: string;
  /** The code of a refusal under one top-level property, where the domain has its own; else INVALID_REQUEST. */
  codes?: Partial<Record<string, ErrorCode>>;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'a JSON array';
  return `JSON ${value === null ? 'null' : typeof value}`;
}

/**
 * zod's own messages, for checks a schema gives none of its own: named by where they are, in
 * the words of the hand-written refusals they stand for.
 */
const wireMessage: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type' && !issue.path?.length && issue.expected === 'object') {
    return `the body is ${jsonKind(issue.input)}`;
  }
  const at = issue.path?.length ? `${issue.path.join('.')}: ` : '';
  if (issue.code === 'unrecognized_keys') {
    return `${at}unknown property "${String(issue.keys[0]).slice(0, 100)}"`;
  }
  const fallback = z.config().localeError?.(issue);
  return `${at}${typeof fallback === 'string' ? fallback : (fallback?.message ?? 'invalid')}`;
};

export function parseWire<T extends z.ZodType>(
  schema: T,
  value: unknown,
  refusal: Refusal = {},
): z.output<T> {
  const parsed = schema.safeParse(value, { error: wireMessage });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String);
  const code = (path[0] === undefined ? undefined : refusal.codes?.[path[0]]) ?? 'INVALID_REQUEST';
  const send = refusal.send ? `: send ${refusal.send}` : '';
  const params = issue.code === 'custom' ? issue.params : undefined;
  throw new SluiceError(code, `${issue.message}${send}`, { path, ...params });
}
