import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, readSettings } from '../lib/settings.ts';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Runs bin/sluice.ts the way `cdk synth` does: CDK_OUTDIR and CDK_CONTEXT_JSON in the environment. */
function runApp(context: Record<string, unknown>): { status: number | null; stderr: string; outdir: string } {
  const outdir = mkdtempSync(join(tmpdir(), 'sluice-cdk-app-'));
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/sluice.ts'], {
    cwd: APP_DIR,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CDK_OUTDIR: outdir,
      CDK_CONTEXT_JSON: JSON.stringify(context),
    },
  });
  return { status: run.status, stderr: run.stderr, outdir };
}

describe('cdk synth offline', () => {
  it('synthesizes the app with no lookups, no credentials and no Docker, and CloudFormation validation finds nothing', {
    timeout: 120_000,
  }, () => {
    const { status, stderr, outdir } = runApp({
      storePrefix: 'prod/sluice',
      stackName: 'SluiceProd',
      // CDK validates every resource against CloudFormation's schemas; make a finding an error.
      '@aws-cdk/core:validateAgainstDefaultRules': true,
    });
    try {
      expect(status, stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
        missing?: unknown[];
        artifacts: Record<string, { environment?: string }>;
      };
      // A lookup (Vpc.fromLookup, AZs from the account…) would be listed here for the CLI to resolve.
      expect(manifest.missing).toBeUndefined();
      // Environment-agnostic unless -c account=… -c region=… is given.
      expect(manifest.artifacts.SluiceProd?.environment).toBe('aws://unknown-account/unknown-region');
      const template = readFileSync(join(outdir, 'SluiceProd.template.json'), 'utf8');
      expect(template).toContain('"/prod/sluice/*"');
      expect(template).toContain('"prod/sluice/*"');
      const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
        pluginReports: unknown[];
      };
      expect(report.pluginReports).toEqual([]);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('settings from context', () => {
  const settingsWith = (context: Record<string, unknown>) => readSettings(new App({ context }).node);

  it('defaults to DEFAULT_SETTINGS', () => {
    expect(settingsWith({})).toEqual(DEFAULT_SETTINGS);
  });

  it('reads every setting, numbers from strings as the CLI passes them', () => {
    expect(
      settingsWith({
        storePrefix: 'prod/sluice',
        redisPrefix: 'prod',
        tokensParameterName: '/prod/sluice/tokens',
        workerImage: 'ghcr.io/example/sluice-worker:1',
        workerArchitecture: 'arm64',
        functionArchitecture: 'arm64',
        redisNodeType: 'cache.r7g.large',
        redisNodes: '3',
        redisClusterMode: 'true',
        redisNodeGroups: '4',
        redisReplicasPerNodeGroup: '2',
        natGateways: '2',
        alarmEmail: 'oncall@example.com',
      }),
    ).toEqual({
      storePrefix: 'prod/sluice',
      redisPrefix: 'prod',
      tokensParameterName: '/prod/sluice/tokens',
      workerImage: 'ghcr.io/example/sluice-worker:1',
      workerArchitecture: 'arm64',
      functionArchitecture: 'arm64',
      redisNodeType: 'cache.r7g.large',
      redisNodes: 3,
      redisClusterMode: true,
      redisNodeGroups: 4,
      redisReplicasPerNodeGroup: 2,
      natGateways: 2,
      alarmEmail: 'oncall@example.com',
    });
  });

  it.each([
    [{ storePrefix: 'trailing/' }, 'storePrefix'],
    [{ storePrefix: 'a/*' }, 'storePrefix'],
    [{ redisPrefix: 'has space' }, 'redisPrefix'],
    [{ workerArchitecture: 'ppc' }, 'workerArchitecture'],
    [{ functionArchitecture: 'x86' }, 'functionArchitecture'],
    [{ redisNodes: '0' }, 'redisNodes'],
    [{ natGateways: 'two' }, 'natGateways'],
    [{ redisClusterMode: 'yes' }, 'redisClusterMode'],
    [{ redisNodeGroups: '0' }, 'redisNodeGroups'],
    [{ redisReplicasPerNodeGroup: '6' }, 'redisReplicasPerNodeGroup'],
  ])('refuses %o', (context, key) => {
    expect(() => settingsWith(context)).toThrow(`context ${key}=`);
  });
});
