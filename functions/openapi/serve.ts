/**
 * `GET /v1/openapi.json` (no token) and its reference page `GET /v1/docs`. The document is
 * built on first use from the routes the app then serves.
 */
import { swaggerUI } from '@hono/swagger-ui';
import { Hono } from 'hono';
import type { Env } from '../request.ts';
import { type OpenApiDocument, type ServedRoute, servedDocument } from './document.ts';

export function openApiRoutes(served: () => readonly ServedRoute[]): Hono<Env> {
  const app = new Hono<Env>();
  let document: OpenApiDocument | undefined;
  app.get('/v1/openapi.json', (c) => {
    document ??= servedDocument(served());
    return c.json(document);
  });
  app.get('/v1/docs', swaggerUI({ url: '/v1/openapi.json', title: 'Sluice API' }));
  return app;
}
