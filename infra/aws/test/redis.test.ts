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
