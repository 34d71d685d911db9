/** The README is the first thing a user reads; these keep it in step with the code. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { envNames } from '../../shared/config.ts';
import { ERROR_CODES, statusOf } from '../../shared/errors.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('opens with the quick start: install and start, install and test', () => {
    const firstSection = readme.split('\n## ')[1] ?? '';
    expect(firstSection).toMatch(/^Quick start/);
    expect(firstSection).toContain('npm ci && npm start');
    expect(firstSection).toContain('npm ci && npm test');
  });

  it('documents every environment variable the configuration reads', () => {
    const documented = new Set(
      [...readme.matchAll(/^\| `(SLUICE_[A-Z0-9_]+)` +\|/gm)].map((match) => match[1]),
    );
    expect(envNames().filter((name) => !documented.has(name))).toEqual([]);
  });

  it('lists every error code with the status it answers, and no other', () => {
    const documented = [...readme.matchAll(/^\| `([A-Z_]+)` +\| (\d{3}) +\|/gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    expect(documented).toEqual(ERROR_CODES.map((code) => [code, statusOf(code)]));
  });

  it('names the pinned versions of bullmq and ioredis it explains', () => {
    const { bullmq, ioredis } = packageJson.dependencies;
    expect(readme).toContain(`bullmq ${bullmq} with ioredis ${ioredis}`);
  });
});
