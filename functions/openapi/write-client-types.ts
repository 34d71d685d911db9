/** `npm run generate:client-types`: writes the client's wire types from the OpenAPI document. */
import { writeFile } from 'node:fs/promises';
import { CLIENT_TYPES_PATH, clientTypesSource } from './client-types.ts';

await writeFile(CLIENT_TYPES_PATH, await clientTypesSource());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
