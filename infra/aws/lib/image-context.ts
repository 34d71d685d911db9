/**
 * The files of the repository a container image build may see. The build context is the
 * repository root, but only the listed paths are sent to Docker: an allow-list in
 * .dockerignore syntax, so a new top-level directory never leaks into an image.
 */

/** Every image runs the Sluice sources with the lock file's dependencies and @sluice/lance. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'shared',
  'queue',
  'runtime',
  'observability',
  'jobs',
  'functions',
  'packages/lance/package.json',
  'packages/lance/index.cjs',
  'packages/lance/index.d.ts',
];

/** Never sent, even inside an allowed directory. */
const NEVER = ['**/node_modules', '**/*.test.ts'];

/**
 * The exclude list that lets through SOURCES and `extra` (files or whole directories). An
 * allowed path's parent directories are opened one level at a time (`!dir` then `dir/*`),
 * shallowest first, so opening one never closes what a shallower rule let through.
 */
export function imageContext(extra: readonly string[]): string[] {
  const paths = [...SOURCES, ...extra];
  const parents = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/');
    for (let depth = 1; depth < parts.length; depth++) parents.add(parts.slice(0, depth).join('/'));
  }
  const opened = [...parents]
    .sort((a, b) => a.split('/').length - b.split('/').length)
    .flatMap((dir) => [`!${dir}`, `${dir}/*`]);
  return ['*', ...opened, ...paths.map((path) => `!${path}`), ...NEVER];
}
