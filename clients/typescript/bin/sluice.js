#!/usr/bin/env node
// In the repository the TypeScript source runs through tsx, so the command is never a stale build;
// the published package ships only its build (`files` in package.json).
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
