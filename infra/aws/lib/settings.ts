/**
 * Everything an operator may choose at deploy time, read from CDK context
 * (`cdk deploy -c storePrefix=prod`, or `context` in cdk.json) with the defaults in one place.
 * Nothing here is looked up in an AWS account: synth stays offline.
 */
import type { Node } from 'constructs';

export type CpuArchitectureName = 'x86_64' | 'arm64';

export interface SluiceSettings {
  /** Key prefix of every object Sluice writes (`SLUICE_STORE_URL=s3://bucket/{storePrefix}`); IAM is scoped to it. */
  storePrefix: string;
  /** `SLUICE_REDIS_PREFIX`: namespace of every Redis key and queue. */
  redisPrefix: string;
  /**
   * Name of an SSM String parameter holding `SLUICE_TOKENS` (JSON array of hashed tokens).
   * The template carries only this name; CloudFormation resolves the value at deploy time.
   */
  tokensParameterName: string;
  /** A prebuilt worker image URI; unset, the image is built from infra/aws/docker/Dockerfile at deploy. */
  workerImage: string | undefined;
  workerArchitecture: CpuArchitectureName;
  /** The HTTP functions' architecture: their image's platform and the LanceDB native package in it. */
  functionArchitecture: CpuArchitectureName;
  redisNodeType: string;
  /** Nodes in the replication group: 1 primary + (n - 1) replicas; 2+ turns on automatic failover. */
  redisNodes: number;
  /** Redis Cluster mode: keys and queues spread over `redisNodeGroups` shards; `redisNodes` is then unused. */
  redisClusterMode: boolean;
  /** Node groups (shards) in cluster mode, each one primary. */
  redisNodeGroups: number;
  /** Replicas of each node group's primary in cluster mode; 1+ turns on Multi-AZ failover. */
  redisReplicasPerNodeGroup: number;
  /** NAT gateways for the workers' image pulls and logs; S3 goes through a gateway endpoint instead. */
  natGateways: number;
  /** Subscribed to the alarm topic when set. */
  alarmEmail: string | undefined;
}

export const DEFAULT_SETTINGS: SluiceSettings = {
  storePrefix: 'sluice',
  redisPrefix: 'sluice',
  tokensParameterName: '/sluice/tokens',
  workerImage: undefined,
  workerArchitecture: 'x86_64',
  functionArchitecture: 'x86_64',
  redisNodeType: 'cache.t4g.small',
  redisNodes: 2,
  redisClusterMode: false,
  redisNodeGroups: 3,
  redisReplicasPerNodeGroup: 1,
  natGateways: 1,
  alarmEmail: undefined,
};

/** Same rule as the key paths of the store, so the prefix is a valid key and a valid IAM resource. */
const STORE_PREFIX = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;
/** Same rule as `redisPrefix` in shared/config.ts. */
const REDIS_PREFIX = /^[A-Za-z0-9_:.-]+$/;
const SSM_NAME = /^\/?[A-Za-z0-9_.\-/]+$/;

export function readSettings(node: Node): SluiceSettings {
  const text = (key: keyof SluiceSettings): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    return String(value);
  };
  const integer = (key: keyof SluiceSettings, fallback: number, min: number, max = Infinity): number => {
    const raw = text(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new Error(
        `context ${key}=${raw}: expected an integer >= ${min}${max === Infinity ? '' : ` and <= ${max}`}`,
      );
    return value;
  };
  const flag = (key: keyof SluiceSettings, fallback: boolean): boolean => {
    const raw = text(key);
    if (raw === undefined) return fallback;
    if (raw !== 'true' && raw !== 'false') throw new Error(`context ${key}=${raw}: expected true or false`);
    return raw === 'true';
  };
  const matching = (key: keyof SluiceSettings, fallback: string, rule: RegExp): string => {
    const value = text(key) ?? fallback;
    if (!rule.test(value)) throw new Error(`context ${key}=${value}: does not match ${rule}`);
    return value;
  };
  const architecture = (key: 'workerArchitecture' | 'functionArchitecture'): CpuArchitectureName => {
    const value = text(key) ?? DEFAULT_SETTINGS[key];
    if (value !== 'x86_64' && value !== 'arm64')
      throw new Error(`context ${key}=${value}: expected x86_64 or arm64`);
    return value;
  };
  return {
    storePrefix: matching('storePrefix', DEFAULT_SETTINGS.storePrefix, STORE_PREFIX),
    redisPrefix: matching('redisPrefix', DEFAULT_SETTINGS.redisPrefix, REDIS_PREFIX),
    tokensParameterName: matching('tokensParameterName', DEFAULT_SETTINGS.tokensParameterName, SSM_NAME),
    workerImage: text('workerImage'),
    workerArchitecture: architecture('workerArchitecture'),
    functionArchitecture: architecture('functionArchitecture'),
    redisNodeType: text('redisNodeType') ?? DEFAULT_SETTINGS.redisNodeType,
    redisNodes: integer('redisNodes', DEFAULT_SETTINGS.redisNodes, 1),
    redisClusterMode: flag('redisClusterMode', DEFAULT_SETTINGS.redisClusterMode),
    redisNodeGroups: integer('redisNodeGroups', DEFAULT_SETTINGS.redisNodeGroups, 1, 500),
    redisReplicasPerNodeGroup: integer(
      'redisReplicasPerNodeGroup',
      DEFAULT_SETTINGS.redisReplicasPerNodeGroup,
      0,
      5,
    ),
    natGateways: integer('natGateways', DEFAULT_SETTINGS.natGateways, 1),
    alarmEmail: text('alarmEmail'),
  };
}
