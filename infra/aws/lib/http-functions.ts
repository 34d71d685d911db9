/**
 * The HTTP functions on Lambda: functions/lambda.ts bundled by esbuild into one ESM file, in
 * the VPC (for Redis), behind a Function URL.
 *
 * Function URL rather than API Gateway: Sluice authenticates every request itself (bearer
 * tokens, DESIGN.md §5), so the gateway's authorizers, keys and throttling would add a hop and a
 * per-request price for nothing; a URL has no 30-second integration cap (a large scan or a
 * write waiting out a slow store put keeps the function's own timeout) and can stream
 * responses. Its event is the HTTP API v2 payload, so moving behind an HTTP API later is a
 * change here, not in functions/.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LAMBDA_ENTRY, LOCK_FILE, LUA_COMMANDS_DIR, REPO_ROOT } from './repo-paths.ts';

/** esbuild's ESM output has no `require`; CommonJS dependencies (ioredis, bullmq's deps) need one. */
export const REQUIRE_SHIM =
  "import { createRequire as __sluiceCreateRequire } from 'node:module'; const require = __sluiceCreateRequire(import.meta.url);";

export interface HttpFunctionsProps {
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
  /** SLUICE_* variables shared with the workers. */
  environment: Record<string, string>;
  /** SLUICE_TOKENS, as a deploy-time reference (never the value itself). */
  tokens: string;
}

export class HttpFunctions extends Construct {
  readonly function: NodejsFunction;
  readonly url: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: HttpFunctionsProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH });
    this.function = new NodejsFunction(this, 'Function', {
      description: 'Sluice HTTP functions (functions/lambda.ts)',
      entry: LAMBDA_ENTRY,
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: LOCK_FILE,
      runtime: lambda.Runtime.NODEJS_22_X,
      // Pure JavaScript once bundled (the one native addon is optional and left out), so Graviton.
      architecture: lambda.Architecture.ARM_64,
      memorySize: 1024,
      timeout: Duration.seconds(60),
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [props.securityGroup],
      logGroup,
      environment: {
        ...props.environment,
        SLUICE_ROLE: 'api',
        SLUICE_TOKENS: props.tokens,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        // Bundled on this machine with the repository's esbuild: no Docker, no network.
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: REQUIRE_SHIM,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Ship the SDK version Sluice is tested with (conditional PutObject), not the runtime's.
        bundleAwsSDK: true,
        // msgpackr's native speed-up: optional, loaded in a try, and a .node file cannot be bundled.
        externalModules: ['msgpackr-extract'],
        // The Lua commands are read from a folder beside the module that loads them, and
        // once bundled that module is index.mjs.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) => [
            `cp -R "${inputDir}/${LUA_COMMANDS_DIR}" "${outputDir}/commands"`,
          ],
        },
      },
    });
    this.url = this.function.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      // functions/lambda.ts answers with hono/aws-lambda's `handle`, which buffers.
      invokeMode: lambda.InvokeMode.BUFFERED,
    });
    new CfnOutput(this, 'Url', { value: this.url.url, description: 'Sluice HTTP API base URL' });
  }
}
