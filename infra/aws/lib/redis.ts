/**
 * Redis for queues and coordination: an ElastiCache replication group in the isolated
 * subnets, reachable only from the security groups that are explicitly allowed in.
 *
 * `maxmemory-policy noeviction` is required by BullMQ: an evicted job or lock key would
 * silently drop work. (Sluice's correctness never depends on Redis — I2 holds with Redis
 * emptied — but a Redis that evicts would make the sampler rebuild lost work all day.)
 * A replication group rather than Serverless because Serverless cannot take a parameter
 * group, so its eviction policy cannot be pinned.
 */
import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import { Construct } from 'constructs';

export const REDIS_PORT = 6379;

export interface RedisProps {
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  nodeType: string;
  /** 1 = a single primary; 2 or more = primary + replicas with automatic failover across AZs. */
  nodes: number;
}

export class Redis extends Construct {
  readonly securityGroup: ec2.SecurityGroup;
  readonly replicationGroup: elasticache.CfnReplicationGroup;
  /** `SLUICE_REDIS_URL`: TLS (`rediss://`), since in-transit encryption is on. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: RedisProps) {
    super(scope, id);
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'Sluice Redis: only from the Sluice function and workers',
      allowAllOutbound: false,
    });
    const subnetGroup = new elasticache.CfnSubnetGroup(this, 'SubnetGroup', {
      description: 'Sluice Redis subnets',
      subnetIds: props.vpc.selectSubnets(props.subnets).subnetIds,
    });
    const parameters = new elasticache.CfnParameterGroup(this, 'Parameters', {
      cacheParameterGroupFamily: 'redis7',
      description: 'Sluice: BullMQ needs noeviction',
      properties: { 'maxmemory-policy': 'noeviction' },
    });
    const failover = props.nodes > 1;
    this.replicationGroup = new elasticache.CfnReplicationGroup(this, 'ReplicationGroup', {
      replicationGroupDescription: `Sluice queues and coordination (${Stack.of(this).stackName})`,
      engine: 'redis',
      engineVersion: '7.1',
      cacheNodeType: props.nodeType,
      numCacheClusters: props.nodes,
      automaticFailoverEnabled: failover,
      multiAzEnabled: failover,
      cacheParameterGroupName: parameters.ref,
      cacheSubnetGroupName: subnetGroup.ref,
      securityGroupIds: [this.securityGroup.securityGroupId],
      port: REDIS_PORT,
      atRestEncryptionEnabled: true,
      transitEncryptionEnabled: true,
      snapshotRetentionLimit: 1,
    });
    this.url = `rediss://${this.replicationGroup.attrPrimaryEndPointAddress}:${this.replicationGroup.attrPrimaryEndPointPort}`;
  }

  /** Lets a client security group reach Redis, and nothing else in. */
  allowFrom(client: ec2.ISecurityGroup, description: string): void {
    this.securityGroup.addIngressRule(client, ec2.Port.tcp(REDIS_PORT), description);
  }
}
