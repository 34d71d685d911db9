import { createHash, randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createAuth, type Scope } from '../../../functions/auth.ts';
import { errorResponse } from '../../../functions/errors.ts';
import { type Env, requestContext } from '../../../functions/request.ts';
import { silentLogger } from '../../../shared/log.ts';

const SCOPES: Scope[] = ['read', 'write', 'admin'];

/** One route per scope behind the real middleware, and a token per scope. */
function scopedApp() {
  const tokens = Object.fromEntries(SCOPES.map((s) => [s, randomBytes(24).toString('base64url')])) as Record<
    Scope,
    string
  >;
  const requireScope = createAuth(
    SCOPES.map((scope) => ({
      name: scope,
      sha256: createHash('sha256').update(tokens[scope]).digest('hex'),
      scopes: [scope],
    })),
  );
  const app = new Hono<Env>();
  app.use(requestContext(silentLogger));
  for (const scope of SCOPES) app.get(`/${scope}`, requireScope(scope), (c) => c.text('ok'));
  app.onError(errorResponse);
  const status = async (token: Scope, route: Scope) =>
    (await app.request(`/${route}`, { headers: { authorization: `Bearer ${tokens[token]}` } })).status;
  return { status };
}

describe('scopes nest: admin includes write, write includes read', () => {
  it('grants each token its own scope and every scope below, and refuses the ones above with 403', async () => {
    const { status } = scopedApp();
    const seen: Record<string, number> = {};
    for (const token of SCOPES)
      for (const route of SCOPES) seen[`${token}->${route}`] = await status(token, route);
    expect(seen).toEqual({
      'read->read': 200,
      'read->write': 403,
      'read->admin': 403,
      'write->read': 200,
      'write->write': 200,
      'write->admin': 403,
      'admin->read': 200,
      'admin->write': 200,
      'admin->admin': 200,
    });
  });
});
