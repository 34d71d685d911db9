import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'infra/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/cdk.out/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per CPU but one, so a two-CPU machine ran the files one
    // at a time; they mostly wait on Redis, child processes and the clock, so two overlap well.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
