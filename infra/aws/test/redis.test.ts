import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { onlyResource, resourcesOf, synthSluice } from './support/synth.ts';

const synth = synthSluice();
afterAll(() => synth.cleanup());
const { template } = synth;

describe('Redis on ElastiCache', () => {
  it('uses a parameter group with maxmemory-policy noeviction (BullMQ must never lose a key)', () => {
    template.resourceCountIs('AWS::ElastiCache::ParameterGroup', 1);
    template.hasResourceProperties('AWS::ElastiCache::ParameterGroup', {
      CacheParameterGroupFamily: 'redis7',
      Properties: { 'maxmemory-policy': 'noeviction' },
    });
    const [parametersId] = onlyResource(template, 'AWS::ElastiCache::ParameterGroup');
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      CacheParameterGroupName: { Ref: parametersId },
    });
  });

  it('is a replication group with failover, encrypted in transit and at rest', () => {
    template.resourceCountIs('AWS::ElastiCache::ReplicationGroup', 1);
    template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      Engine: 'redis',
      NumCacheClusters: 2,
      AutomaticFailoverEnabled: true,
      MultiAZEnabled: true,
      TransitEncryptionEnabled: true,
      AtRestEncryptionEnabled: true,
    });
  });

  it('lives in the isolated data subnets', () => {
    const [, group] = onlyResource(template, 'AWS::ElastiCache::SubnetGroup');
    const subnets = group.Properties.SubnetIds as Array<{ Ref: string }>;
    expect(subnets.map((s) => s.Ref)).toEqual([
      expect.stringMatching(/^NetworkVpcdataSubnet1/),
      expect.stringMatching(/^NetworkVpcdataSubnet2/),
    ]);
  });

  it('accepts connections only from the function and worker security groups, on 6379', () => {
    const redisSg = resourcesOf(template, 'AWS::EC2::SecurityGroup').find(([id]) =>
      id.startsWith('RedisSecurityGroup'),
    );
    expect(redisSg).toBeDefined();
    const [redisSgId, sg] = redisSg!;
    expect(sg.Properties.SecurityGroupIngress).toBeUndefined();
    const ingress = resourcesOf(template, 'AWS::EC2::SecurityGroupIngress')
      .map(
        ([, r]) =>
          r.Properties as {
            GroupId: { 'Fn::GetAtt': string[] };
            SourceSecurityGroupId: { 'Fn::GetAtt': string[] };
            FromPort: number;
            ToPort: number;
            IpProtocol: string;
          },
      )
      .filter((p) => p.GroupId['Fn::GetAtt'][0] === redisSgId);
    expect(
      ingress
        .map((p) => [
          p.SourceSecurityGroupId['Fn::GetAtt'][0]!.replace(/[0-9A-F]{8}$/, ''),
          p.IpProtocol,
          p.FromPort,
          p.ToPort,
        ])
        .sort(),
    ).toEqual([
      ['FunctionsSecurityGroup', 'tcp', 6379, 6379],
      ['WorkersSecurityGroup', 'tcp', 6379, 6379],
    ]);
  });
});

describe('Redis on ElastiCache in cluster mode', () => {
  const clustered = synthSluice({
    settings: { redisClusterMode: true, redisNodeGroups: 3, redisReplicasPerNodeGroup: 2 },
  });
  afterAll(() => clustered.cleanup());

  it('splits the keyspace over the node groups, each with its replicas, failing over across AZs', () => {
    clustered.template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      NumNodeGroups: 3,
      ReplicasPerNodeGroup: 2,
      NumCacheClusters: Match.absent(),
      AutomaticFailoverEnabled: true,
      MultiAZEnabled: true,
      TransitEncryptionEnabled: true,
      AtRestEncryptionEnabled: true,
    });
  });

  it('turns cluster mode on in the parameter group and keeps noeviction', () => {
    clustered.template.hasResourceProperties('AWS::ElastiCache::ParameterGroup', {
      Properties: { 'maxmemory-policy': 'noeviction', 'cluster-enabled': 'yes' },
    });
  });

  it('keeps automatic failover on, as ElastiCache requires in cluster mode, even without replicas', () => {
    const bare = synthSluice({
      settings: { redisClusterMode: true, redisNodeGroups: 2, redisReplicasPerNodeGroup: 0 },
    });
    try {
      bare.template.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
        NumNodeGroups: 2,
        ReplicasPerNodeGroup: 0,
        AutomaticFailoverEnabled: true,
        MultiAZEnabled: false,
      });
    } finally {
      bare.cleanup();
    }
  });

  it('points every process at the configuration endpoint as the cluster seed, over TLS', () => {
    type Variables = Record<string, unknown>;
    const lambdas = resourcesOf(clustered.template, 'AWS::Lambda::Function')
      .map(([, fn]) => (fn.Properties as { Environment?: { Variables?: Variables } }).Environment?.Variables)
      .filter((vars): vars is Variables => vars?.SLUICE_REDIS_URL !== undefined);
    const tasks = resourcesOf(clustered.template, 'AWS::ECS::TaskDefinition').flatMap(([, task]) =>
      (
        task.Properties as {
          ContainerDefinitions: Array<{ Environment: Array<{ Name: string; Value: unknown }> }>;
        }
      ).ContainerDefinitions.map((c) => Object.fromEntries(c.Environment.map((e) => [e.Name, e.Value]))),
    );
    const envs: Variables[] = [...lambdas, ...tasks];
    expect(envs.length).toBeGreaterThan(1);
    for (const env of envs) {
      expect(JSON.stringify(env.SLUICE_REDIS_CLUSTER_NODES)).toContain('ConfigurationEndPoint.Address');
      expect(JSON.stringify(env.SLUICE_REDIS_URL)).toContain('rediss://');
      expect(JSON.stringify(env.SLUICE_REDIS_URL)).toContain('ConfigurationEndPoint.Address');
    }
  });

  it('leaves SLUICE_REDIS_CLUSTER_NODES out with cluster mode off', () => {
    expect(JSON.stringify(template.toJSON())).not.toContain('SLUICE_REDIS_CLUSTER_NODES');
  });
});
