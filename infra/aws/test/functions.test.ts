import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUIRE_SHIM } from '../lib/http-functions.ts';
import { LUA_COMMANDS_DIR, REPO_ROOT } from '../lib/repo-paths.ts';
import { resourcesOf, synthSluice } from './support/synth.ts';

const synth = synthSluice({ bundle: true });
afterAll(() => synth.cleanup());
const { template } = synth;

type LambdaProps = {
  Runtime: string;
  Handler: string;
  Code: { S3Key: string };
  Environment: { Variables: Record<string, unknown> };
};

function theFunction(): LambdaProps {
  // CDK adds no helper functions to this stack (no custom resources, no log retention lambda).
  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  expect(functions).toHaveLength(1);
  return functions[0]![1].Properties as unknown as LambdaProps;
}

/** The bundle staged in the cloud assembly: asset.<hash>/index.mjs. */
function bundlePath(): string {
  const hash = theFunction().Code.S3Key.replace(/\.zip$/, '');
  return join(synth.outdir, `asset.${hash}`, 'index.mjs');
}

describe('HTTP functions on Lambda', () => {
  it('runs on nodejs22.x with the ESM handler index.handler', () => {
    const fn = theFunction();
    expect(fn.Runtime).toBe('nodejs22.x');
    expect(fn.Handler).toBe('index.handler');
  });

  it('is bundled by esbuild as one ESM file with a require shim for CommonJS dependencies', () => {
    const path = bundlePath();
    expect(existsSync(path)).toBe(true);
    const code = readFileSync(path, 'utf8');
    expect(code.startsWith(REQUIRE_SHIM)).toBe(true);
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
  });

  it('ships the Lua commands beside the bundle, where the bundled loader reads them', () => {
    const shipped = join(bundlePath(), '..', 'commands');
    const source = join(REPO_ROOT, LUA_COMMANDS_DIR);
    const files = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
    expect(files(shipped)).toEqual(files(source));
    expect(readFileSync(join(shipped, 'allocate-9.lua'), 'utf8')).toBe(
      readFileSync(join(source, 'allocate-9.lua'), 'utf8'),
    );
  });

  it('bundles functions/lambda.ts, which loads as ESM and answers GET /healthz', () => {
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

  it('gets the SLUICE_* environment of DESIGN.md §5, as the API role', () => {
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
