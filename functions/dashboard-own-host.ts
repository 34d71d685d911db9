/**
 * bull-board's page links its fonts from Google's font host. In an offline or locked-down
 * network the page waits for that host, then renders with fallback fonts; and an operator's
 * browser tells a third party each time it opens the dashboard. The link is taken out of
 * the page, so it asks nothing of any host but Sluice's and its stylesheet's own fallback
 * (the system's sans-serif) applies at once.
 */
import type { MiddlewareHandler } from 'hono';

const FONT_LINK = /<link[^>]*\bhref="https:\/\/fonts\.googleapis\.com\/[^"]*"[^>]*>/g;

export const ownHostOnly: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.get('content-type')?.startsWith('text/html')) return;
  const html = await c.res.text();
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  c.res = new Response(html.replace(FONT_LINK, ''), { status: c.res.status, headers });
};
