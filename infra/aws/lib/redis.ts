/**
 * Redis for queues and coordination: an ElastiCache replication group in the isolated
 * subnets, reachable only from the security groups that are explicitly allowed in.
 *
 * `maxmemory-policy noeviction` is required by BullMQ: an evicted job or lock key would
 * silently drop work. (Sluice's correctness never depends on Redis — I2 holds with Redis
 * emptied — but a Redis that evicts would make the sampler rebuild lost work all day.)
 * A replication group rather than Serverless because Serverless cannot take a parameter
 * group, so its eviction policy cannot be pinned. In cluster mode the keyspace is split
 * over node groups (shards), each a primary and its replicas; Sluice then connects with
 * its cluster client through the configuration endpoint.
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
  /** Cluster mode: this many node groups of one primary and `replicasPerNodeGroup` replicas; `nodes` is then unused. */
  cluster?: { nodeGroups: number; replicasPerNodeGroup: number };
}

export class Redis extends Construct {
  readonly securityGroup: ec2.SecurityGroup;
  readonly replicationGroup: elasticache.CfnReplicationGroup;
  /** `SLUICE_REDIS_URL`: TLS (`rediss://`), since in-transit encryption is on. */
  readonly url: string;
  /** `SLUICE_REDIS_CLUSTER_NODES` in cluster mode (the configuration endpoint), else undefined. */
  readonly clusterNodes: string | undefined;

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
    const { cluster } = props;
    const parameters = new elasticache.CfnParameterGroup(this, 'Parameters', {
      cacheParameterGroupFamily: 'redis7',
      description: 'Sluice: BullMQ needs noeviction',
      properties: { 'maxmemory-policy': 'noeviction', ...(cluster ? { 'cluster-enabled': 'yes' } : {}) },
    });
    const failover = cluster ? cluster.replicasPerNodeGroup > 0 : props.nodes > 1;
    this.replicationGroup = new elasticache.CfnReplicationGroup(this, 'ReplicationGroup', {
      replicationGroupDescription: `Sluice queues and coordination (${Stack.of(this).stackName})`,
      engine: 'redis',
      engineVersion: '7.1',
      cacheNodeType: props.nodeType,
      ...(cluster
        ? { numNodeGroups: cluster.nodeGroups, replicasPerNodeGroup: cluster.replicasPerNodeGroup }
        : { numCacheClusters: props.nodes }),
      // ElastiCache requires automatic failover for every cluster-mode group, replicas or not.
      automaticFailoverEnabled: failover || cluster !== undefined,
      multiAzEnabled: failover,
      cacheParameterGroupName: parameters.ref,
      cacheSubnetGroupName: subnetGroup.ref,
      securityGroupIds: [this.securityGroup.securityGroupId],
      port: REDIS_PORT,
      atRestEncryptionEnabled: true,
      transitEncryptionEnabled: true,
      snapshotRetentionLimit: 1,
    });
    if (cluster) {
      const endpoint = `${this.replicationGroup.attrConfigurationEndPointAddress}:${this.replicationGroup.attrConfigurationEndPointPort}`;
      this.url = `rediss://${endpoint}`;
      this.clusterNodes = endpoint;
    } else {
      this.url = `rediss://${this.replicationGroup.attrPrimaryEndPointAddress}:${this.replicationGroup.attrPrimaryEndPointPort}`;
      this.clusterNodes = undefined;
    }
  }

  /** Lets a client security group reach Redis, and nothing else in. */
  allowFrom(client: ec2.ISecurityGroup, description: string): void {
    this.securityGroup.addIngressRule(client, ec2.Port.tcp(REDIS_PORT), description);
  }
}
