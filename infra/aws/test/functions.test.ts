import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILE, bundleLambda, REQUIRE_SHIM } from '../lib/lambda-bundle.ts';
import { REPO_ROOT } from '../lib/repo-paths.ts';
import { resourcesOf, type Synthesized, synthSluice } from './support/synth.ts';

const synth = synthSluice();
afterAll(() => synth.cleanup());
const { template } = synth;

type LambdaProps = {
  PackageType?: string;
  Runtime?: string;
  Handler?: string;
  Architectures: string[];
  Code: { ImageUri?: unknown; S3Key?: string };
  Environment: { Variables: Record<string, unknown> };
};

function theFunction(t = template): LambdaProps {
  // CDK adds no helper functions to this stack (no custom resources, no log retention lambda).
  const functions = resourcesOf(t, 'AWS::Lambda::Function');
  expect(functions).toHaveLength(1);
  return functions[0]![1].Properties as unknown as LambdaProps;
}

type ImageAsset = {
  source: {
    directory: string;
    dockerFile: string;
    dockerBuildArgs?: Record<string, string>;
    platform?: string;
  };
};

/** The function image among the image assets `cdk deploy` would build, with its hash (the staged context's name). */
function functionAsset(s: Synthesized): ImageAsset & { hash: string } {
  const manifest = JSON.parse(readFileSync(join(s.outdir, 'Sluice.assets.json'), 'utf8')) as {
    dockerImages: Record<string, ImageAsset>;
  };
  const found = Object.entries(manifest.dockerImages).filter(
    ([, a]) => a.source.dockerFile === 'infra/aws/docker/lambda.Dockerfile',
  );
  expect(found).toHaveLength(1);
  const [hash, asset] = found[0]!;
  return { hash, ...asset };
}

const DOCKERFILE = readFileSync(join(REPO_ROOT, 'infra/aws/docker/lambda.Dockerfile'), 'utf8');

describe('HTTP functions on Lambda: a container image carrying LanceDB', () => {
  it('is an image function (no zip, runtime or handler in the template), built at deploy time; synth needs no Docker', () => {
    const fn = theFunction();
    expect(fn.PackageType).toBe('Image');
    expect(fn.Runtime).toBeUndefined();
    expect(fn.Handler).toBeUndefined();
    expect(fn.Code.S3Key).toBeUndefined();
    expect(JSON.stringify(fn.Code.ImageUri)).toContain('container-assets');
  });

  it('defaults to x86_64: the Lambda, the image platform and the LanceDB native package agree', () => {
    expect(theFunction().Architectures).toEqual(['x86_64']);
    const { source } = functionAsset(synth);
    expect(source.platform).toBe('linux/amd64');
    expect(source.dockerBuildArgs).toEqual({ LANCEDB_NATIVE: '@lancedb/lancedb-linux-x64-gnu' });
  });

  it('with -c functionArchitecture=arm64 all three are arm64, and the workers keep their own setting', () => {
    const alt = synthSluice({ settings: { functionArchitecture: 'arm64' } });
    try {
      expect(theFunction(alt.template).Architectures).toEqual(['arm64']);
      const { source } = functionAsset(alt);
      expect(source.platform).toBe('linux/arm64');
      expect(source.dockerBuildArgs).toEqual({ LANCEDB_NATIVE: '@lancedb/lancedb-linux-arm64-gnu' });
      alt.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
        RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
      });
    } finally {
      alt.cleanup();
    }
  });

  it('builds on the Lambda Node 22 base image and fails unless the native package asked for is installed and LanceDB loads', () => {
    const stages = DOCKERFILE.split('\n').filter((l) => l.startsWith('FROM '));
    expect(stages.at(-1)).toBe('FROM public.ecr.aws/lambda/nodejs:22');
    expect(DOCKERFILE).toContain('ARG LANCEDB_NATIVE');
    expect(DOCKERFILE).toContain('test -n "$LANCEDB_NATIVE"');
    expect(DOCKERFILE).toContain('npm ls "$LANCEDB_NATIVE"');
    expect(DOCKERFILE).toContain("require('@sluice/lance').lancedb");
    expect(DOCKERFILE).toContain("require('usearch').Index");
    expect(DOCKERFILE).toContain("p.workspaces=['packages/lance']");
    expect(DOCKERFILE).toContain('RUN node --import tsx infra/aws/lib/lambda-bundle.ts /src /bundle');
    expect(DOCKERFILE).toContain('CMD ["index.handler"]');
  });

  it('sends the build what it needs and nothing else: sources, lock file, @sluice/lance without node_modules, the bundler', () => {
    const context = join(synth.outdir, `asset.${functionAsset(synth).hash}`);
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'functions/lambda.ts',
      'packages/lance/package.json',
      'packages/lance/index.cjs',
      'infra/aws/lib/lambda-bundle.ts',
      'infra/aws/docker/lambda.Dockerfile',
    ])
      expect(existsSync(join(context, file)), file).toBe(true);
    expect(existsSync(join(context, 'packages/lance/node_modules'))).toBe(false);
    expect(existsSync(join(context, 'infra/aws/docker/Dockerfile'))).toBe(false);
    expect(readdirSync(join(context, 'infra/aws/lib'))).toEqual(['lambda-bundle.ts']);
    const lock = JSON.parse(readFileSync(join(context, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    // npm in the image finds the native package of either architecture in the lock file.
    for (const arch of ['linux-x64-gnu', 'linux-arm64-gnu'])
      expect(Object.keys(lock.packages).some((k) => k.endsWith(`@lancedb/lancedb-${arch}`))).toBe(true);
  });
});

describe('HTTP functions on Lambda: the bundle in the image', () => {
  let outdir = '';
  beforeAll(async () => {
    outdir = mkdtempSync(join(tmpdir(), 'sluice-lambda-bundle-'));
    await bundleLambda(REPO_ROOT, outdir);
  }, 120_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  const bundlePath = () => join(outdir, BUNDLE_FILE);

  it('is one ESM file with a require shim for CommonJS dependencies, exporting the handler', () => {
    const code = readFileSync(bundlePath(), 'utf8');
    expect(code.startsWith(REQUIRE_SHIM)).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
  });

  it('ships the Lua commands beside the bundle, where the bundled loader reads them', () => {
    const shipped = join(bundlePath(), '..', 'commands');
    const source = join(REPO_ROOT, 'shared', 'redis', 'commands');
    const files = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
    expect(files(shipped)).toEqual(files(source));
    expect(readFileSync(join(shipped, 'allocate-10.lua'), 'utf8')).toBe(
      readFileSync(join(source, 'allocate-10.lua'), 'utf8'),
    );
  });

  it('leaves LanceDB and usearch out, to be required from the node_modules installed next to it', () => {
    const code = readFileSync(bundlePath(), 'utf8');
    expect(code).toContain('"@sluice/lance"');
    expect(code).not.toContain('@lancedb/lancedb');
    expect(code).toContain('"usearch"');
    expect(code).not.toContain('usearch.node');
  });

  it('loads as ESM and answers GET /healthz', () => {
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath: '/healthz',
      rawQueryString: '',
      headers: { host: 'example.lambda-url.us-east-1.on.aws' },
      requestContext: {
        http: {
          method: 'GET',
          path: '/healthz',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 't',
        },
        domainName: 'example.lambda-url.us-east-1.on.aws',
        requestId: 'r1',
        stage: '$default',
        timeEpoch: 0,
      },
      isBase64Encoded: false,
    };
    const script = `
      const { handler } = await import(${JSON.stringify(pathToFileURL(bundlePath()).href)});
      const res = await handler(${JSON.stringify(event)}, {});
      process.stdout.write('RESULT ' + JSON.stringify(res) + '\\n');
      process.exit(0);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: process.env.PATH,
        SLUICE_TOKENS: JSON.stringify([{ name: 't', sha256: '0'.repeat(64), scopes: ['read'] }]),
        SLUICE_STORE_URL: 's3://sluice-test-bucket/sluice',
        SLUICE_S3_REGION: 'us-east-1',
        // Nothing listens there: /healthz must answer without Redis.
        SLUICE_REDIS_URL: 'redis://127.0.0.1:9',
        SLUICE_LOG_LEVEL: 'silent',
      },
    });
    const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    expect(line, run.stderr).toBeDefined();
    const res = JSON.parse(line!.slice('RESULT '.length)) as { statusCode: number; body: string };
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
  });
});

describe('HTTP functions on Lambda: environment, network and URL', () => {
  it('gets the SLUICE_* environment (docs/design.md, "Environment") as the API role', () => {
    const env = theFunction().Environment.Variables;
    expect(Object.keys(env).sort()).toEqual(
      [
        'NODE_OPTIONS',
        'SLUICE_REDIS_PREFIX',
        'SLUICE_REDIS_URL',
        'SLUICE_ROLE',
        'SLUICE_S3_REGION',
        'SLUICE_STORE_URL',
        'SLUICE_TOKENS',
      ].sort(),
    );
    expect(env.SLUICE_ROLE).toBe('api');
    expect(env.SLUICE_REDIS_PREFIX).toBe('sluice');
    expect(env.SLUICE_S3_REGION).toEqual({ Ref: 'AWS::Region' });
    expect(JSON.stringify(env.SLUICE_REDIS_URL)).toContain('rediss://');
    expect(JSON.stringify(env.SLUICE_REDIS_URL)).toContain('PrimaryEndPoint.Address');
    expect(JSON.stringify(env.SLUICE_STORE_URL)).toMatch(/"s3:\/\/".*DataBucket.*"\/sluice"/);
  });

  it('takes SLUICE_TOKENS from the SSM parameter at deploy time; the template never holds tokens', () => {
    const tokens = theFunction().Environment.Variables.SLUICE_TOKENS as { Ref: string };
    expect(Object.keys(tokens)).toEqual(['Ref']);
    const parameter = template.toJSON().Parameters[tokens.Ref];
    expect(parameter).toEqual({ Type: 'AWS::SSM::Parameter::Value<String>', Default: '/sluice/tokens' });
  });

  it('runs in the VPC private subnets with its own security group', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: {
        SubnetIds: Match.arrayWith([{ Ref: Match.stringLikeRegexp('appSubnet') }]),
        SecurityGroupIds: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^FunctionsSecurityGroup'), 'GroupId'] }],
      },
    });
  });

  it('is served by a Function URL; Sluice checks bearer tokens itself', () => {
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE', InvokeMode: 'BUFFERED' });
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
  });
});
