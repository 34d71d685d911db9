/**
 * Who may open the dashboard: an admin, as for every other admin route. Three ways in:
 * - `?token=<admin token>`, a link an operator opens once: checked like a bearer token,
 *   exchanged for a session cookie (dashboard-session.ts) and answered with a redirect to
 *   the same page without the token, so it stays out of the address bar, the history and
 *   any Referer;
 * - `Authorization: Bearer <admin token>` (curl, a proxy that adds it): the API's own check;
 * - the session cookie: HttpOnly, SameSite=Strict, scoped to the dashboard's path, Secure
 *   when the request came over HTTPS.
 * With no tokens configured auth is off and the server listens on loopback only (server.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../shared/config.ts';
import { SluiceError } from '../shared/errors.ts';
import { createAuth, findPrincipal, type Principal, toPrincipals } from './auth.ts';
import { type DashboardSessions, SESSION_SECONDS } from './dashboard-session.ts';
import type { Env } from './request.ts';

const COOKIE = 'sluice_dashboard';

export function dashboardAuth(
  tokens: Config['tokens'],
  sessions: DashboardSessions,
  basePath: string,
): MiddlewareHandler<Env> {
  const principals = toPrincipals(tokens);
  if (principals.length === 0) return (_c, next) => next();
  const bearer = createAuth(tokens)('admin');
  return async (c, next) => {
    const url = new URL(c.req.url);
    const token = url.searchParams.get('token');
    if (token !== null) {
      const principal = admin(findPrincipal(principals, token), 'unknown token');
      setCookie(c, COOKIE, await sessions.open(principal), {
        path: basePath,
        httpOnly: true,
        sameSite: 'Strict',
        secure: overHttps(c, url),
        maxAge: SESSION_SECONDS,
      });
      url.searchParams.delete('token');
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (c.req.header('authorization') !== undefined) return bearer(c, next);
    const session = getCookie(c, COOKIE);
    if (session === undefined) {
      throw new SluiceError(
        'UNAUTHORIZED',
        `open ${basePath}?token=<admin token> once, or send Authorization: Bearer <admin token>`,
      );
    }
    const principal = admin(
      await sessions.principal(session, principals),
      `the dashboard session has ended: open ${basePath}?token=<admin token> again`,
    );
    c.set('log', c.var.log.child({ principal: principal.name }));
    await next();
  };
}

function admin(principal: Principal | undefined, unknown: string): Principal {
  if (!principal) throw new SluiceError('UNAUTHORIZED', unknown);
  if (!principal.scopes.has('admin')) {
    throw new SluiceError('FORBIDDEN', 'the dashboard needs a token with the "admin" scope', {
      required: 'admin',
    });
  }
  return principal;
}

function overHttps(c: Context<Env>, url: URL): boolean {
  return url.protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}
