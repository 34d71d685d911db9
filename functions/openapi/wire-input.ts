/** A request part parsed by its wire schema: a mismatch is 400 INVALID_REQUEST naming what to send. */
import type { z } from '@hono/zod-openapi';
import { SluiceError } from '../../shared/errors.ts';

export function parseWire<T extends z.ZodType>(schema: T, value: unknown, expected: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new SluiceError('INVALID_REQUEST', `${at}${issue?.message ?? 'invalid'}; send ${expected}`, {
    path: issue?.path.map(String) ?? [],
  });
}
