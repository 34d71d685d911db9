/**
 * The HTTP functions' bundle: functions/lambda.ts and everything it imports, by esbuild,
 * as one ESM file `index.mjs` (the image's handler is `index.handler`). Run inside the
 * function image's build (infra/aws/docker/lambda.Dockerfile) and by the tests:
 *   node --import tsx infra/aws/lib/lambda-bundle.ts <repository root> <output directory>
 * It imports nothing of the repository, so the image build needs only this file to run it.
 */
import { cp } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BuildOptions, build } from 'esbuild';

/** esbuild's ESM output has no `require`; CommonJS dependencies (ioredis, bullmq's deps) need one. */
export const REQUIRE_SHIM =
  "import { createRequire as __sluiceCreateRequire } from 'node:module'; const require = __sluiceCreateRequire(import.meta.url);";

export const BUNDLE_FILE = 'index.mjs';

export function bundleOptions(repoRoot: string, outdir: string): BuildOptions {
  return {
    entryPoints: [join(repoRoot, 'functions', 'lambda.ts')],
    outfile: join(outdir, BUNDLE_FILE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_SHIM },
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    // The AWS SDK is bundled too: the version Sluice is tested with (conditional PutObject), not the runtime's.
    external: [
      // LanceDB with its native module, installed next to the bundle for the image's architecture.
      '@sluice/lance',
      // The pending blocks' graph index, a native module installed next to the bundle too.
      'usearch',
      // msgpackr's native speed-up: optional, loaded in a try, and a .node file cannot be bundled.
      'msgpackr-extract',
    ],
    logLevel: 'warning',
  };
}

/**
 * Sluice's Lua commands are read from disk, from a folder beside the module that loads them;
 * once bundled, that module is the bundle itself.
 */
const LUA_COMMANDS_DIR = join('shared', 'redis', 'commands');

export async function bundleLambda(repoRoot: string, outdir: string): Promise<void> {
  await build(bundleOptions(repoRoot, outdir));
  await cp(join(repoRoot, LUA_COMMANDS_DIR), join(outdir, 'commands'), { recursive: true });
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { positionals } = parseArgs({ allowPositionals: true });
  if (positionals.length !== 2) {
    process.stderr.write('usage: lambda-bundle.ts <repository root> <output directory>\n');
    process.exit(2);
  }
  await bundleLambda(resolve(positionals[0]!), resolve(positionals[1]!));
}
