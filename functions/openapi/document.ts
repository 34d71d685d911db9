/**
 * The OpenAPI 3.1 document of the API, built from the route list. The served document
 * describes the routes the app serves; the full one (every route of the list) is what the
 * TypeScript client's types are generated from.
 */
import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { API_ROUTES } from './routes.ts';

export interface ServedRoute {
  method: string;
  /** Hono's form: `/v1/tables/:t`. */
  path: string;
}

export type OpenApiDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** `/v1/tables/:t` as OpenAPI writes it: `/v1/tables/{t}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function routeId(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

export function openApiDocument(routes: readonly RouteConfig[] = API_ROUTES): OpenApiDocument {
  const builder = new OpenAPIHono();
  builder.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A token of the scope the route names (read ⊂ write ⊂ admin)',
  });
  for (const route of routes) builder.openAPIRegistry.registerPath(route);
  return builder.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Sluice',
      version: '1',
      description:
        'Durable ingestion into object-storage tables. Errors are `{"error":{"code","message","details"}}`; the code decides the status.',
    },
  });
}

/** The document of the routes among `served`; a served route with no OpenAPI route is absent from it. */
export function servedDocument(served: readonly ServedRoute[]): OpenApiDocument {
  const ids = new Set(served.map((r) => routeId(r.method, openApiPath(r.path))));
  return openApiDocument(API_ROUTES.filter((r) => ids.has(routeId(r.method, r.path))));
}
