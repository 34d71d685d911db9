import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../lib/repo-paths.ts';
import { WORKER_GROUPS } from '../lib/worker-groups.ts';
import { resourcesOf, synthSluice } from './support/synth.ts';

const synth = synthSluice();
afterAll(() => synth.cleanup());
const { template } = synth;

type Container = {
  Command: string[];
  Environment: Array<{ Name: string; Value: unknown }>;
  Image: unknown;
  StopTimeout: number;
};
type TaskDefinition = {
  Cpu: string;
  Memory: string;
  ContainerDefinitions: Container[];
  TaskRoleArn: unknown;
};

const taskDefinitions = resourcesOf(template, 'AWS::ECS::TaskDefinition').map(
  ([id, r]) => [id, r.Properties as unknown as TaskDefinition] as const,
);

function taskFor(queues: string): readonly [string, TaskDefinition] {
  const found = taskDefinitions.filter(([, t]) =>
    t.ContainerDefinitions[0]!.Command.includes(`--queues=${queues}`),
  );
  expect(found, `one task definition runs --queues=${queues}`).toHaveLength(1);
  return found[0]!;
}

function serviceFor(queues: string): Record<string, unknown> {
  const [taskId] = taskFor(queues);
  const services = resourcesOf(template, 'AWS::ECS::Service').filter(
    ([, s]) => (s.Properties.TaskDefinition as { Ref: string }).Ref === taskId,
  );
  expect(services).toHaveLength(1);
  return services[0]![1].Properties;
}

const envOf = (c: Container) => Object.fromEntries(c.Environment.map((e) => [e.Name, e.Value]));

describe('workers: one Fargate service per queue group', () => {
  it('has exactly three services, one per group', () => {
    template.resourceCountIs('AWS::ECS::Service', 3);
    template.resourceCountIs('AWS::ECS::TaskDefinition', 3);
    expect(WORKER_GROUPS.map((g) => g.queues.join(','))).toEqual(['seal,flush', 'merge', 'sampler']);
  });

  it.each(['seal,flush', 'merge', 'sampler'])(
    'runs node --import tsx jobs/worker.ts --queues=%s',
    (queues) => {
      const [, task] = taskFor(queues);
      const [container] = task.ContainerDefinitions;
      expect(task.ContainerDefinitions).toHaveLength(1);
      expect(container!.Command).toEqual(['node', '--import', 'tsx', 'jobs/worker.ts', `--queues=${queues}`]);
      const env = envOf(container!);
      expect(env.SLUICE_ROLE).toBe('worker');
      expect(env.SLUICE_QUEUES).toBe(queues);
      for (const name of [
        'SLUICE_REDIS_URL',
        'SLUICE_REDIS_PREFIX',
        'SLUICE_STORE_URL',
        'SLUICE_S3_REGION',
      ]) {
        expect(env[name], name).toBeDefined();
      }
      expect(env.SLUICE_TOKENS).toBeUndefined();
      // Only the one sampler publishes the metrics scaling and alarms read.
      expect(env.SLUICE_CLOUDWATCH_EMF).toBe(queues === 'sampler' ? 'true' : undefined);
      // The grace period fits inside the SIGTERM → SIGKILL window.
      expect(Number(env.SLUICE_SHUTDOWN_GRACE_SECONDS)).toBeLessThan(container!.StopTimeout);
    },
  );

  it('runs in the private subnets without public IPs', () => {
    for (const queues of ['seal,flush', 'merge', 'sampler']) {
      expect(serviceFor(queues)).toMatchObject({
        LaunchType: 'FARGATE',
        NetworkConfiguration: {
          AwsvpcConfiguration: {
            AssignPublicIp: 'DISABLED',
            Subnets: [
              { Ref: expect.stringMatching(/^NetworkVpcappSubnet1/) },
              { Ref: expect.stringMatching(/^NetworkVpcappSubnet2/) },
            ],
          },
        },
      });
    }
  });

  it('runs exactly one sampler, never two during a deployment, and does not scale it', () => {
    expect(serviceFor('sampler')).toMatchObject({
      DesiredCount: 1,
      DeploymentConfiguration: { MinimumHealthyPercent: 0, MaximumPercent: 100 },
    });
    const targets = resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalableTarget');
    expect(targets.some(([id]) => id.startsWith('WorkersSampler'))).toBe(false);
  });

  it.each([
    ['SealFlush', 1, 8],
    ['Merge', 1, 4],
  ])('scales %s between %i and %i tasks', (group, min, max) => {
    const targets = resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalableTarget').filter(([id]) =>
      id.startsWith(`Workers${group}`),
    );
    expect(targets).toHaveLength(1);
    expect(targets[0]![1].Properties).toMatchObject({
      MinCapacity: min,
      MaxCapacity: max,
      ScalableDimension: 'ecs:service:DesiredCount',
      ServiceNamespace: 'ecs',
    });
  });

  it.each([
    ['SealFlush', ['seal', 'flush']],
    ['Merge', ['merge']],
  ])('scales %s on its own backlog: Sluice/QueueWaiting of its queues', (group, queues) => {
    const policies = resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalingPolicy').filter(([id]) =>
      id.startsWith(`Workers${group}`),
    );
    // Step scaling: one policy to scale out, one to scale in.
    expect(policies.map(([, p]) => p.Properties.PolicyType)).toEqual(['StepScaling', 'StepScaling']);
    const alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm').filter(([id]) =>
      id.startsWith(`Workers${group}`),
    );
    expect(alarms).toHaveLength(2);
    for (const [, alarm] of alarms) {
      // Every action of the alarm is one of this group's scaling policies.
      for (const action of alarm.Properties.AlarmActions as Array<{ Ref: string }>) {
        expect(policies.map(([id]) => id)).toContain(action.Ref);
      }
      const waiting = queues.map((queue) => ({
        Namespace: 'Sluice',
        MetricName: 'QueueWaiting',
        Dimensions: [{ Name: 'Queue', Value: queue }],
      }));
      const metrics = alarm.Properties.Metrics as
        | Array<{ Expression?: string; MetricStat?: { Metric: Record<string, unknown> } }>
        | undefined;
      if (metrics === undefined) {
        // One queue: the alarm watches its metric itself.
        const { Namespace, MetricName, Dimensions } = alarm.Properties;
        expect([{ Namespace, MetricName, Dimensions }]).toEqual(waiting);
        continue;
      }
      expect(metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric)).toEqual(waiting);
      expect(metrics.find((m) => m.Expression)?.Expression).toBe(
        queues.map((_, i) => `FILL(q${i}, 0)`).join(' + '),
      );
    }
  });

  it('builds the image from infra/aws/docker/Dockerfile at deploy time; synth needs no Docker', () => {
    const [, task] = taskFor('seal,flush');
    expect(JSON.stringify(task.ContainerDefinitions[0]!.Image)).toContain('container-assets');
    const manifest = template.toJSON();
    expect(manifest).toBeDefined();
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [
        Match.objectLike({ LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }) }),
      ],
    });
  });
});

describe('workers: the image carries LanceDB', () => {
  it('sends the @sluice/lance workspace package to the build, not its installed node_modules', () => {
    const contexts = readdirSync(synth.outdir)
      .map((name) => join(synth.outdir, name))
      .filter((dir) => existsSync(join(dir, 'infra/aws/docker/Dockerfile')));
    expect(contexts).toHaveLength(1);
    const context = contexts[0]!;
    for (const file of ['package.json', 'index.cjs', 'index.d.ts'])
      expect(existsSync(join(context, 'packages/lance', file))).toBe(true);
    expect(existsSync(join(context, 'packages/lance/node_modules'))).toBe(false);
    const lock = JSON.parse(readFileSync(join(context, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    // npm ci in the image picks the native package of the image's architecture from these.
    for (const arch of ['linux-x64-gnu', 'linux-arm64-gnu'])
      expect(Object.keys(lock.packages).some((k) => k.endsWith(`@lancedb/lancedb-${arch}`))).toBe(true);
  });

  it("installs it as a workspace inside the image, for the image's own architecture", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'infra/aws/docker/Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY packages/lance/package.json');
    expect(dockerfile).toContain("p.workspaces=['packages/lance']");
  });
});

describe('workers: a prebuilt image (-c workerImage=…)', () => {
  it('pulls an ECR image through its repository, so the execution role may pull it', () => {
    const alt = synthSluice({
      settings: {
        workerImage: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-worker:v1',
        workerArchitecture: 'arm64',
      },
    });
    try {
      const tasks = resourcesOf(alt.template, 'AWS::ECS::TaskDefinition');
      for (const [, t] of tasks) {
        const [container] = t.Properties.ContainerDefinitions as Container[];
        expect(JSON.stringify(container!.Image)).toContain('123456789012.dkr.ecr.eu-west-1.');
        expect(JSON.stringify(container!.Image)).toContain('/sluice-worker:v1');
        expect(t.Properties.RuntimePlatform).toEqual({
          CpuArchitecture: 'ARM64',
          OperatingSystemFamily: 'LINUX',
        });
      }
      const pulls = resourcesOf(alt.template, 'AWS::IAM::Policy').flatMap(([, p]) =>
        (
          p.Properties as { PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } }
        ).PolicyDocument.Statement.filter((s) => JSON.stringify(s.Action).includes('ecr:BatchGetImage')),
      );
      expect(pulls.length).toBeGreaterThan(0);
      for (const s of pulls) expect(JSON.stringify(s.Resource)).toContain('repository/sluice-worker');
    } finally {
      alt.cleanup();
    }
  });

  it('uses any other image URI as it is', () => {
    const alt = synthSluice({ settings: { workerImage: 'ghcr.io/example/sluice-worker:1.2.3' } });
    try {
      alt.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
        ContainerDefinitions: [Match.objectLike({ Image: 'ghcr.io/example/sluice-worker:1.2.3' })],
      });
    } finally {
      alt.cleanup();
    }
  });
});
