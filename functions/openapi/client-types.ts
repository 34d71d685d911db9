/**
 * The TypeScript client's wire types, generated from the full OpenAPI document by
 * openapi-typescript and formatted as the repository formats code, so the committed file
 * (clients/typescript/src/api-types.ts) can be compared with a fresh generation.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from './document.ts';

export const CLIENT_TYPES_PATH = fileURLToPath(
  new URL('../../clients/typescript/src/api-types.ts', import.meta.url),
);

const BANNER = `/**
 * The wire types of the Sluice API, generated from its OpenAPI document
 * (functions/openapi/) by openapi-typescript: \`npm run generate:client-types\`. Not edited by hand.
 */
`;

export async function clientTypesSource(): Promise<string> {
  const ast = await openapiTS(openApiDocument() as OpenAPI3, { exportType: true });
  const biome = fileURLToPath(new URL('../../node_modules/.bin/biome', import.meta.url));
  return execFileSync(biome, ['format', `--stdin-file-path=${CLIENT_TYPES_PATH}`], {
    input: BANNER + astToString(ast),
    encoding: 'utf8',
  });
}
