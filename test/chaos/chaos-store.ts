/**
 * Where a chaos run keeps its data, and how the schedule's store faults reach it. On a
 * file store every process follows the fault plan through its fault-injecting store,
 * which Lance — opening the dataset's directory itself — never meets. On the S3 test
 * server the same episodes become the server's fault rules, so the base's own objects,
 * which Lance reads and writes, suffer them too.
 */
import { join } from 'node:path';
import type { FaultEpisode, FaultPlan } from '../../shared/store/fault-plan.ts';
import type { FaultRule, S3Op } from '../support/s3/fault-script.ts';
import { startS3Server } from '../support/s3-server.ts';

export type ChaosStoreKind = 'fs' | 's3';

export interface ChaosStore {
  kind: ChaosStoreKind;
  /** SLUICE_STORE_URL and its settings, for every process. */
  env: Record<string, string>;
  /** The plan every process's file store follows; none on S3, where the server injects. */
  plan?: FaultPlan;
  /** Failures injected on the base's own objects (`…/base.lance/…`), which Lance met. */
  lanceFaults(): Promise<number>;
  stop(): Promise<void>;
}

const PREFIX = 'chaos/';

export async function chaosStore(
  kind: ChaosStoreKind,
  dir: string,
  startedAt: number,
  episodes: FaultEpisode[],
): Promise<ChaosStore> {
  if (kind === 'fs') {
    return {
      kind,
      env: { SLUICE_STORE_URL: `file://${join(dir, 'store')}` },
      plan: { startedAt, episodes },
      lanceFaults: async () => 0,
      stop: async () => {},
    };
  }
  const server = await startS3Server({ bucket: 'chaos' });
  await server.setFaults({
    seed: startedAt,
    rules: episodes.map((episode) => ruleOf(episode, startedAt)),
  });
  return {
    kind,
    env: {
      SLUICE_STORE_URL: `s3://${server.bucket}/${PREFIX}`,
      SLUICE_S3_ENDPOINT: server.endpoint,
      SLUICE_S3_REGION: server.region,
      SLUICE_S3_FORCE_PATH_STYLE: 'true',
      SLUICE_S3_ACCESS_KEY_ID: server.credentials.accessKeyId,
      SLUICE_S3_SECRET_ACCESS_KEY: server.credentials.secretAccessKey,
    },
    async lanceFaults() {
      return (await server.stats()).injected.filter((f) => f.key.includes('/base.lance/')).length;
    },
    stop: () => server.stop(),
  };
}

/** A fault-plan episode as an S3 fault rule: the same window, keys, operations and count. */
function ruleOf(episode: FaultEpisode, startedAt: number): FaultRule {
  const ops = episode.op === undefined ? undefined : ([episode.op].flat() as S3Op[]);
  return {
    ...(ops ? { ops } : {}),
    ...(episode.key ? { key: `${PREFIX}${episode.key}` } : {}),
    ...(episode.latencyMs ? { latency: { fixedMs: episode.latencyMs } } : {}),
    ...(episode.fault ? { fault: failureOf(episode) } : {}),
    ...(episode.times ? { times: episode.times } : {}),
    atMs: episode.atMs - (Date.now() - startedAt),
    forMs: episode.forMs,
  };
}

/** A failure is a 503 SlowDown or a 500, alternately; a lost ack, an answer lost after the write. */
function failureOf(episode: FaultEpisode): FaultRule['fault'] {
  if (episode.fault === 'lostAck') return 'lostAnswer';
  return episode.atMs % 2 === 0 ? 'slowDown' : 'internalError';
}
