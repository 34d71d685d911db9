/**
 * Bearer tokens (docs/design.md, "Auth"). Only their sha256 is configured; a presented token is
 * hashed and compared in constant time against every configured hash, all of them, so the
 * time taken says nothing about which one, if any, matched. Scopes nest: `read` (tables,
 * rows, shard stats), `write` (also create tables, upsert, delete) and `admin` (also
 * reopen, dead letters, merge, drain) — a writer reads back what it wrote, and an admin
 * can do everything. With no tokens configured, auth is off — the server then binds to
 * loopback only (server.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../shared/config.ts';
import { SluiceError } from '../shared/errors.ts';
import type { Env } from './request.ts';

export type Scope = Config['tokens'][number]['scopes'][number];

export interface Principal {
  name: string;
  hash: Buffer;
  scopes: ReadonlySet<Scope>;
}

/** Each scope includes every scope before it. */
const SCOPE_ORDER: readonly Scope[] = ['read', 'write', 'admin'];

/** RFC 6750 token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export type RequireScope = (scope: Scope) => MiddlewareHandler<Env>;

/** The scopes a token listing `listed` holds: those listed and every scope they include. */
export function grantedScopes(listed: readonly Scope[]): ReadonlySet<Scope> {
  const highest = Math.max(...listed.map((scope) => SCOPE_ORDER.indexOf(scope)));
  return new Set(SCOPE_ORDER.slice(0, highest + 1));
}

export function toPrincipals(tokens: Config['tokens']): Principal[] {
  return tokens.map((t) => ({
    name: t.name,
    hash: Buffer.from(t.sha256, 'hex'),
    scopes: grantedScopes(t.scopes),
  }));
}

export function createAuth(tokens: Config['tokens']): RequireScope {
  const principals = toPrincipals(tokens);
  if (principals.length === 0) return () => (_c, next) => next();
  return (scope) => async (c, next) => {
    const principal = authenticate(principals, c.req.header('authorization'));
    c.set('log', c.var.log.child({ principal: principal.name }));
    if (!principal.scopes.has(scope)) {
      throw new SluiceError('FORBIDDEN', `this token lacks the "${scope}" scope`, { required: scope });
    }
    await next();
  };
}

function authenticate(principals: readonly Principal[], header: string | undefined): Principal {
  if (header === undefined) {
    throw new SluiceError('UNAUTHORIZED', 'an Authorization: Bearer <token> header is required');
  }
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) {
    throw new SluiceError('UNAUTHORIZED', 'the Authorization header is not "Bearer <token>"');
  }
  const found = findPrincipal(principals, token);
  if (!found) throw new SluiceError('UNAUTHORIZED', 'unknown token');
  return found;
}

/** The principal holding `token`, if any, compared in constant time against every hash. */
export function findPrincipal(principals: readonly Principal[], token: string): Principal | undefined {
  const presented = createHash('sha256').update(token).digest();
  let found: Principal | undefined;
  for (const principal of principals) {
    if (timingSafeEqual(presented, principal.hash) && found === undefined) found = principal;
  }
  return found;
}
