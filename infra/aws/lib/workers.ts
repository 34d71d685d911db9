/**
 * One ECS Fargate service per queue group (lib/worker-groups.ts): its own task definition
 * running `node --import tsx jobs/worker.ts --queues=…`, its own task role (the store prefix
 * only), and step scaling on its own backlog.
 */
import { Duration } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { DataBucket } from './data-bucket.ts';
import { groupBacklog } from './metrics.ts';
import { isSingleton, type WorkerGroup } from './worker-groups.ts';

export interface WorkerServiceProps {
  cluster: ecs.ICluster;
  group: WorkerGroup;
  image: ecs.ContainerImage;
  cpuArchitecture: ecs.CpuArchitecture;
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
  /** SLUICE_* variables shared with the HTTP functions. */
  environment: Record<string, string>;
  dataBucket: DataBucket;
}

/** Fargate's ceiling for SIGTERM → SIGKILL; the worker finishes or hands back its job within it. */
const STOP_TIMEOUT = Duration.seconds(120);

export function workerCommand(queues: readonly string[]): string[] {
  return ['node', '--import', 'tsx', 'jobs/worker.ts', `--queues=${queues.join(',')}`];
}

export class WorkerService extends Construct {
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly service: ecs.FargateService;

  constructor(scope: Construct, id: string, props: WorkerServiceProps) {
    super(scope, id);
    const { group } = props;
    const queues = group.queues.join(',');
    const singleton = isSingleton(group);

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: group.cpu,
      memoryLimitMiB: group.memoryMiB,
      runtimePlatform: {
        cpuArchitecture: props.cpuArchitecture,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    this.taskDefinition.addContainer('worker', {
      image: props.image,
      command: workerCommand(group.queues),
      environment: {
        ...props.environment,
        SLUICE_ROLE: 'worker',
        SLUICE_QUEUES: queues,
        SLUICE_SHUTDOWN_GRACE_SECONDS: String(STOP_TIMEOUT.toSeconds() - 15),
        // Embedded Metric Format lines in the task's log: CloudWatch makes metrics of them, no API call or permission.
        ...(group.publishesMetrics ? { SLUICE_CLOUDWATCH_EMF: 'true' } : {}),
      },
      logging: ecs.LogDrivers.awsLogs({
        streamPrefix: group.id,
        logGroup: new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH }),
      }),
      stopTimeout: STOP_TIMEOUT,
    });
    props.dataBucket.grantStoreAccess(this.taskDefinition.taskRole);
    this.service = new ecs.FargateService(this, 'Service', {
      cluster: props.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: group.minTasks,
      vpcSubnets: props.subnets,
      securityGroups: [props.securityGroup],
      assignPublicIp: false,
      circuitBreaker: { rollback: true },
      // A singleton is replaced stop-first, so two never run at once; the others start-first.
      minHealthyPercent: singleton ? 0 : 100,
      maxHealthyPercent: singleton ? 100 : 200,
    });

    if (!singleton) {
      const scaling = this.service.autoScaleTaskCount({
        minCapacity: group.minTasks,
        maxCapacity: group.maxTasks,
      });
      scaling.scaleOnMetric('Backlog', {
        metric: groupBacklog(group.queues),
        adjustmentType: appscaling.AdjustmentType.CHANGE_IN_CAPACITY,
        // Scale in only when nothing waits; out by one per threshold, faster on a deep backlog.
        scalingSteps: [
          { upper: 0, change: -1 },
          { lower: group.scaleOutBacklog, change: +1 },
          { lower: group.scaleOutBacklog * 10, change: +3 },
        ],
        cooldown: Duration.minutes(2),
      });
    }
  }
}
