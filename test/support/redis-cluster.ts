/**
 * A real Redis Cluster for a test: three masters and three replicas from redis-server on
 * loopback ports picked at run time (other test files run beside this one), built with
 * `redis-cli --cluster create`, with a short node timeout so a failover takes seconds.
 * `stop()` ends every node and removes their directories; should the test process end
 * first, an exit hook kills what is left.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { RedisTarget } from '../../shared/redis/connection.ts';
import { keysMatching } from './redis.ts';

const run = promisify(execFile);

/** Redis Cluster's bus listens on the client port + 10000. */
const BUS_OFFSET = 10_000;
const NODE_TIMEOUT_MS = 2_000;
const SETTLE_TIMEOUT_MS = 20_000;

export interface ClusterNodeInfo {
  id: string;
  port: number;
  role: 'master' | 'replica';
  /** The master's id, for a replica. */
  masterId: string | null;
  /** Slot ranges [from, to] the node serves, for a master. */
  slots: Array<[number, number]>;
  failed: boolean;
}

export interface SlotMigration {
  startedAt: number;
  endedAt: number;
  keys: number;
}

export interface TestCluster {
  /** `SLUICE_REDIS_CLUSTER_NODES` of this cluster. */
  readonly seeds: string;
  readonly target: Required<RedisTarget>;
  readonly ports: readonly number[];
  /** A plain connection to one node (its keys only; no redirects). */
  node(port: number): Redis;
  /** The cluster's view from a live node. */
  topology(): Promise<ClusterNodeInfo[]>;
  /** The master serving `key`'s slot. */
  masterOf(key: string): Promise<ClusterNodeInfo>;
  /** Keys matching `match` per master port (replicas hold copies and are left out). */
  keysPerMaster(match: string): Promise<Map<number, number>>;
  /** SIGKILL of one node, as a crash. */
  kill(port: number): void;
  /** SIGSTOP / SIGCONT: the node stops answering (and replicating) until resumed. */
  pause(port: number): void;
  resume(port: number): void;
  /**
   * Closes a master's replication links. With the replica paused first, what the master
   * acks from then on reaches no replica: the kernel cannot even buffer it for later.
   */
  cutReplication(masterPort: number): Promise<void>;
  /**
   * Moves one slot to another master as `redis-cli --cluster reshard` does (IMPORTING,
   * MIGRATING, MIGRATE key by key, SETSLOT NODE everywhere), pausing `pauseMs` after each
   * key so that clients meet the slot half moved.
   */
  migrateSlot(slot: number, toPort: number, pauseMs: number): Promise<SlotMigration>;
  /** Until every live node reports `cluster_state:ok` and one view of the masters. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** `host`: the address every node binds and announces (127.0.0.1 unless the test's hosts need another). */
export async function startTestCluster(options: { host?: string } = {}): Promise<TestCluster> {
  const host = options.host ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-'));
  const ports = await freeClusterPorts(host, 6);
  const nodes = new Map<number, ChildProcess>();
  const clients = new Map<number, Redis>();
  const stop = async () => {
    for (const client of clients.values()) client.disconnect();
    clients.clear();
    await Promise.all([...nodes.values()].map(endProcess));
    nodes.clear();
    live.delete(killNow);
    rmSync(dir, { recursive: true, force: true });
  };
  const killNow = () => {
    for (const child of nodes.values()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  track(killNow);
  const node = (port: number): Redis => {
    let client = clients.get(port);
    if (!client) {
      // Bounded, so that asking a paused or dead node fails instead of waiting.
      client = new Redis({
        port,
        host,
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        commandTimeout: 1_000,
      });
      client.on('error', () => undefined);
      clients.set(port, client);
    }
    return client;
  };
  const liveNode = (): Redis => {
    const port = ports.find((p) => {
      const child = nodes.get(p);
      return child && child.exitCode === null && child.signalCode === null;
    });
    if (port === undefined) throw new Error('no Redis Cluster node is running');
    return node(port);
  };
  const topology = async () => parseClusterNodes((await liveNode().cluster('NODES')) as string);
  const cluster: TestCluster = {
    seeds: ports.map((p) => `${host}:${p}`).join(','),
    target: {
      redisUrl: `redis://${host}`,
      redisClusterNodes: ports.map((p) => `${host}:${p}`).join(','),
    },
    ports,
    node,
    topology,
    async masterOf(key) {
      const slot = (await liveNode().cluster('KEYSLOT', key)) as number;
      const master = (await topology()).find(
        (n) => n.role === 'master' && !n.failed && n.slots.some(([from, to]) => slot >= from && slot <= to),
      );
      if (!master) throw new Error(`no live master serves slot ${slot}`);
      return master;
    },
    async keysPerMaster(match) {
      const counts = new Map<number, number>();
      for (const master of (await topology()).filter((n) => n.role === 'master' && !n.failed)) {
        counts.set(master.port, (await keysMatching(node(master.port), match)).length);
      }
      return counts;
    },
    kill(port) {
      nodes.get(port)?.kill('SIGKILL');
    },
    pause(port) {
      nodes.get(port)?.kill('SIGSTOP');
    },
    resume(port) {
      nodes.get(port)?.kill('SIGCONT');
    },
    async cutReplication(masterPort) {
      await node(masterPort).client('KILL', 'TYPE', 'replica');
    },
    async migrateSlot(slot, toPort, pauseMs) {
      const all = await topology();
      const from = all.find((n) => n.role === 'master' && n.slots.some(([a, b]) => slot >= a && slot <= b))!;
      const to = all.find((n) => n.port === toPort)!;
      const source = node(from.port);
      const target = node(to.port);
      const startedAt = Date.now();
      await target.cluster('SETSLOT', slot, 'IMPORTING', from.id);
      await source.cluster('SETSLOT', slot, 'MIGRATING', to.id);
      let keys = 0;
      for (;;) {
        const batch = (await source.cluster('GETKEYSINSLOT', slot, 1)) as string[];
        if (batch.length === 0) break;
        await source.migrate(host, to.port, '', 0, 5_000, 'KEYS', ...batch);
        keys += batch.length;
        await sleep(pauseMs);
      }
      for (const master of all.filter((n) => n.role === 'master' && !n.failed)) {
        await node(master.port).cluster('SETSLOT', slot, 'NODE', to.id);
      }
      return { startedAt, endedAt: Date.now(), keys };
    },
    settle: () => settle(cluster, nodes),
    stop,
  };
  try {
    for (const port of ports) nodes.set(port, spawnNode(dir, host, port));
    await Promise.all(ports.map((port) => waitForPing(node(port), nodes.get(port)!)));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((p) => `${host}:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
    await waitForReplicas(cluster);
    await cluster.settle();
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}

function spawnNode(dir: string, host: string, port: number): ChildProcess {
  const args = [
    '--port',
    String(port),
    '--bind',
    host,
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout',
    String(NODE_TIMEOUT_MS),
    '--dir',
    dir,
    '--dbfilename',
    `dump-${port}.rdb`,
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
    // Off the loopback the test's own hosts connect over a bridge private to this machine,
    // which protected mode (loopback only without a password) would refuse.
    ...(host === '127.0.0.1' ? [] : ['--protected-mode', 'no']),
    '--logfile',
    join(dir, `redis-${port}.log`),
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  child.on('error', () => undefined);
  return child;
}

async function waitForPing(client: Redis, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    try {
      if ((await client.ping()) === 'PONG') return;
    } catch {
      await sleep(25);
    }
  }
  throw new Error('redis-server did not answer PING');
}

async function settle(cluster: TestCluster, nodes: Map<number, ChildProcess>): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const running = cluster.ports.filter((port) => nodes.get(port)?.signalCode === null);
    try {
      const views = await Promise.all(running.map((port) => nodeView(cluster.node(port))));
      const agreed = new Set(views.map((v) => v.masters)).size === 1;
      if (views.every((v) => v.ok) && agreed && views[0]!.masters.split(',').length === 3) return;
      last = JSON.stringify(views);
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`the Redis Cluster did not settle: ${last}`);
}

/**
 * One node's view: ok when it sees every slot served and, as a replica, has finished its
 * sync with its master (a replica that never synced cannot take over).
 */
async function nodeView(client: Redis): Promise<{ ok: boolean; masters: string }> {
  const info = (await client.cluster('INFO')) as string;
  const replication = await client.info('replication');
  const masters = parseClusterNodes((await client.cluster('NODES')) as string)
    .filter((n) => n.role === 'master' && !n.failed && n.slots.length > 0)
    .map((n) => n.port)
    .sort()
    .join(',');
  const synced = /role:master/.test(replication) || /master_link_status:up/.test(replication);
  return { ok: /cluster_state:ok/.test(info) && /cluster_slots_ok:16384/.test(info) && synced, masters };
}

/** `redis-cli --cluster create` returns before every replica has attached to its master. */
async function waitForReplicas(cluster: TestCluster): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while ((await cluster.topology()).filter((n) => n.role === 'replica').length < 3) {
    if (Date.now() > deadline) throw new Error('the replicas of the Redis Cluster did not attach');
    await sleep(50);
  }
}

/** `CLUSTER NODES` as records. */
export function parseClusterNodes(text: string): ClusterNodeInfo[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, master, , , , , ...slots] = line.split(' ');
      const port = Number(address!.split('@')[0]!.split(':').at(-1));
      const flagSet = new Set(flags!.split(','));
      return {
        id: id!,
        port,
        role: flagSet.has('master') ? 'master' : 'replica',
        masterId: master === '-' ? null : master!,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [from, to] = s.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
        failed: flagSet.has('fail') || flagSet.has('fail?'),
      };
    });
}

/** `count` ports whose cluster bus port (+10000) is free too, so the bus port stays below 65536. */
async function freeClusterPorts(host: string, count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (ports.includes(port)) continue;
    if ((await portFree(host, port)) && (await portFree(host, port + BUS_OFFSET))) ports.push(port);
  }
  return ports;
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

async function endProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode === 'SIGKILL') return;
  const exited = once(child, 'exit');
  child.kill('SIGCONT');
  child.kill('SIGKILL');
  await exited;
}

/** Clusters still running, killed when this process ends however it ends. */
const live = new Set<() => void>();
let hooked = false;

function track(killNow: () => void): void {
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const kill of live) kill();
    });
  }
  live.add(killNow);
}
