/**
 * Sluice on AWS (docs/design.md, "Processes and deployment"): one bucket, the HTTP functions on Lambda, Redis
 * on ElastiCache, one Fargate service per queue group, alarms. Everything is declared here;
 * nothing is looked up, so `cdk synth` runs offline.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { Alarms } from './alarms.ts';
import { DataBucket } from './data-bucket.ts';
import { HttpFunctions } from './http-functions.ts';
import { Network } from './network.ts';
import { Redis } from './redis.ts';
import { runtimeEnv } from './runtime-env.ts';
import { DEFAULT_SETTINGS, type SluiceSettings } from './settings.ts';
import { WORKER_GROUPS } from './worker-groups.ts';
import { workerImage } from './worker-image.ts';
import { WorkerService } from './workers.ts';

export interface SluiceStackProps extends StackProps {
  settings?: Partial<SluiceSettings>;
}

export class SluiceStack extends Stack {
  readonly settings: SluiceSettings;
  readonly network: Network;
  readonly data: DataBucket;
  readonly redis: Redis;
  readonly functions: HttpFunctions;
  readonly workers: WorkerService[];
  readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: SluiceStackProps = {}) {
    super(scope, id, props);
    const settings = { ...DEFAULT_SETTINGS, ...props.settings };
    this.settings = settings;

    this.network = new Network(this, 'Network', { natGateways: settings.natGateways });
    const { vpc } = this.network;
    this.data = new DataBucket(this, 'Data', { storePrefix: settings.storePrefix });
    this.redis = new Redis(this, 'Redis', {
      vpc,
      subnets: this.network.dataSubnets,
      nodeType: settings.redisNodeType,
      nodes: settings.redisNodes,
      cluster: settings.redisClusterMode
        ? { nodeGroups: settings.redisNodeGroups, replicasPerNodeGroup: settings.redisReplicasPerNodeGroup }
        : undefined,
    });
    const environment = runtimeEnv(this, {
      redisUrl: this.redis.url,
      redisClusterNodes: this.redis.clusterNodes,
      redisPrefix: settings.redisPrefix,
      storeUrl: this.data.storeUrl,
    });

    const functionsSg = new ec2.SecurityGroup(this, 'FunctionsSecurityGroup', {
      vpc,
      description: 'Sluice HTTP functions',
    });
    const workersSg = new ec2.SecurityGroup(this, 'WorkersSecurityGroup', {
      vpc,
      description: 'Sluice workers (no inbound)',
    });
    this.redis.allowFrom(functionsSg, 'Sluice HTTP functions');
    this.redis.allowFrom(workersSg, 'Sluice workers');

    this.functions = new HttpFunctions(this, 'Functions', {
      vpc,
      subnets: this.network.appSubnets,
      securityGroup: functionsSg,
      environment,
      // A deploy-time reference to the SSM parameter: the template holds its name, never the tokens.
      tokens: ssm.StringParameter.valueForStringParameter(this, settings.tokensParameterName),
      architecture: settings.functionArchitecture,
    });
    this.data.grantStoreAccess(this.functions.function);

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc });
    const image = workerImage(this, settings.workerImage, settings.workerArchitecture);
    const cpuArchitecture =
      settings.workerArchitecture === 'arm64' ? ecs.CpuArchitecture.ARM64 : ecs.CpuArchitecture.X86_64;
    this.workers = WORKER_GROUPS.map(
      (group) =>
        new WorkerService(this, `Workers${group.id}`, {
          cluster,
          group,
          image,
          cpuArchitecture,
          subnets: this.network.appSubnets,
          securityGroup: workersSg,
          environment,
          dataBucket: this.data,
        }),
    );

    this.alarms = new Alarms(this, 'Alarms', { email: settings.alarmEmail });

    new CfnOutput(this, 'BucketName', { value: this.data.bucket.bucketName });
    new CfnOutput(this, 'StoreUrl', { value: this.data.storeUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
  }
}
