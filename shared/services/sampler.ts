/** The sampler/scheduler tick (scheduler/sampler.ts) on this process's parts. */
import type { Logger } from '../log.ts';
import { type SamplerDeps, samplerTick, type TickReport } from '../scheduler/sampler.ts';
import { type TableLag, tableLags } from '../scheduler/table-lag.ts';
import type { SluiceParts } from '../sluice-parts.ts';

export class Sampler {
  readonly #deps: SamplerDeps;

  constructor(parts: SluiceParts) {
    this.#deps = samplerDeps(parts);
  }

  tick(log: Logger, now?: number): Promise<TickReport> {
    return samplerTick({ ...this.#deps, log }, now);
  }

  /** How far each table's base lags its writes, as last sampled. */
  tableLags(now?: number): Promise<TableLag[]> {
    return tableLags(this.#deps.index, now);
  }
}

export function samplerDeps(parts: SluiceParts): SamplerDeps {
  return {
    ...parts,
    index: parts.samplerIndex,
    gates: {
      isCoolingDown: (kind, table, now) => parts.ledger.isCoolingDown(kind, table, now),
      isDrained: (table) => parts.drains.isDrained(table),
    },
    work: parts.scheduler,
  };
}
