/**
 * The seal and flush workers of one write-bench case in a process of their own, as Sluice
 * is deployed: writers (the HTTP functions) in one process, workers in another, so a flush
 * does not take the writers' CPU or block their event loop. Spawned by
 * write-worker-process.ts with the case's WriteSluiceOptions (JSON) as its one argument;
 * it opens the same Redis prefix and store (directory, or prefix on the S3 endpoint) as the
 * writers, its store through `openBenchStore`, which counts its requests, and speaks over
 * IPC (WorkersRequest, WorkersReply). It exits when the writing process goes away.
 */
import { pino } from 'pino';
import { startWorkers } from '../../jobs/workers.ts';
import { openRuntime } from '../../runtime/runtime.ts';
import { JobTimes } from './job-times.ts';
import { type WriteSluiceOptions, writeSluiceConfig } from './write-config.ts';
import { round } from './write-drive.ts';
import { openBenchStore, requestCounts } from './write-stores.ts';
import type { WorkersReply, WorkersRequest } from './write-worker-process.ts';

const RSS_SAMPLE_MS = 20;
const CLOSE_GRACE_MS = 2_000;

async function main(): Promise<void> {
  const parent = process.send?.bind(process);
  if (!parent) throw new Error('write-workers.ts runs as a child of the write bench, with an IPC channel');
  const send = (reply: WorkersReply) => parent(reply);
  // Killed with the writing process: its IPC channel closes however it ended.
  process.on('disconnect', () => process.exit(1));

  const options = JSON.parse(process.argv[2] ?? '') as WriteSluiceOptions;
  const config = writeSluiceConfig(options);
  const log = pino({ level: config.logLevel, name: 'bench-workers' }, pino.destination(2));
  const store = openBenchStore(options.location);
  const runtime = openRuntime(config, log, store);
  const workers = startWorkers(runtime.sluice, ['seal', 'flush']);
  const jobs = new JobTimes();
  jobs.watch(workers.workers);

  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, RSS_SAMPLE_MS);

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    clearInterval(sampler);
    await workers.close(CLOSE_GRACE_MS);
    await runtime.close();
    process.exit(0);
  };
  process.on('message', (request: WorkersRequest) => {
    if (request.type === 'sample') {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      send({
        type: 'sample',
        requests: requestCounts(store),
        peakRssMb: round(peakRss / 2 ** 20, 1),
        jobs: jobs.take(),
      });
      peakRss = process.memoryUsage.rss();
    } else if (request.type === 'close') {
      close().catch((err: unknown) => {
        log.error({ err }, 'closing the bench workers failed');
        process.exit(1);
      });
    }
  });

  await Promise.all([...workers.workers.values()].map((worker) => worker.waitUntilReady()));
  send({ type: 'ready' });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
