/**
 * The HTTP functions on Lambda: a container image (lib/function-image.ts) holding
 * functions/lambda.ts bundled by esbuild and LanceDB's native module, which reads of the
 * base need; in the VPC (for Redis), behind a Function URL.
 *
 * Function URL rather than API Gateway: Sluice authenticates every request itself (bearer
 * tokens, docs/design.md, "Auth"), so the gateway's authorizers, keys and throttling would add a hop and a
 * per-request price for nothing; a URL has no 30-second integration cap (a large scan or a
 * write waiting out a slow store put keeps the function's own timeout) and can stream
 * responses. Its event is the HTTP API v2 payload, so moving behind an HTTP API later is a
 * change here, not in functions/.
 */
import { CfnOutput, Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { functionImage } from './function-image.ts';
import type { CpuArchitectureName } from './settings.ts';

export interface HttpFunctionsProps {
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
  /** SLUICE_* variables shared with the workers. */
  environment: Record<string, string>;
  /** SLUICE_TOKENS, as a deploy-time reference (never the value itself). */
  tokens: string;
  architecture: CpuArchitectureName;
}

export class HttpFunctions extends Construct {
  readonly function: lambda.DockerImageFunction;
  readonly url: lambda.FunctionUrl;

  constructor(scope: Construct, id: string, props: HttpFunctionsProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH });
    const image = functionImage(props.architecture);
    this.function = new lambda.DockerImageFunction(this, 'Function', {
      description: 'Sluice HTTP functions (functions/lambda.ts)',
      code: image.code,
      architecture: image.architecture,
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
    });
    this.url = this.function.addFunctionUrl({
      authType: lambda.FunctionUrlAuthType.NONE,
      // functions/lambda.ts answers with hono/aws-lambda's `handle`, which buffers.
      invokeMode: lambda.InvokeMode.BUFFERED,
    });
    new CfnOutput(this, 'Url', { value: this.url.url, description: 'Sluice HTTP API base URL' });
  }
}
