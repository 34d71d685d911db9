/**
 * `npm run bench -- <name>` runs `test/bench/<name>.ts`: its `run()` yields one result per
 * measured case and system, printed here as one JSON object per line on stdout (docs/design.md,
 * "Benchmarks"). Progress and anything else goes to stderr, so stdout stays machine-readable.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { removeBenchDirs } from './bench-dirs.ts';
import type { BenchModule } from './measure.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && !['run.ts', 'measure.ts', 'bench-dirs.ts'].includes(file))
  .map((file) => file.slice(0, -3));

const name = process.argv[2];
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(`${here}${name}.ts`)) {
  process.stderr.write(`usage: npm run bench -- <name>; available: ${available.join(', ')}\n`);
  process.exit(2);
}

const bench = (await import(`./${name}.ts`)) as BenchModule;
try {
  for await (const result of bench.run()) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
} finally {
  await removeBenchDirs();
}
