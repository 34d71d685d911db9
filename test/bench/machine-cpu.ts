/**
 * What the machine's CPUs did while a system's writers wrote: the share of their time that
 * was busy, waiting on I/O, or stolen by the hypervisor, summed over every CPU (Linux's
 * /proc/stat). On a small shared VM the same code's rows/s move with these, so a line that
 * ran on a saturated machine says so; where /proc/stat is absent the figures are null.
 */
import { readFileSync } from 'node:fs';

/** Cumulative CPU time in clock ticks, summed over all CPUs. */
export interface CpuTimes {
  busy: number;
  idle: number;
  iowait: number;
  steal: number;
}

/** Percent of all CPU time over an interval. */
export interface CpuShares {
  busyPct: number;
  iowaitPct: number;
  stealPct: number;
}

/**
 * The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal (guest time
 * is already counted in user and nice, so it is left out).
 */
export function parseCpuTimes(procStat: string): CpuTimes | null {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (ticks.length < 8 || !ticks.every(Number.isFinite)) return null;
  // Eight finite ticks were checked for, so the defaults are never used.
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = ticks;
  return { busy: user + nice + system + irq + softirq, idle, iowait, steal };
}

export function readCpuTimes(): CpuTimes | null {
  try {
    return parseCpuTimes(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
}

/** CPU time summed over intervals (a system's slices); null once any interval could not be read. */
export class CpuTally {
  private total: CpuTimes | null = { busy: 0, idle: 0, iowait: 0, steal: 0 };

  add(before: CpuTimes | null, after: CpuTimes | null): void {
    const { total } = this;
    if (total === null || before === null || after === null) {
      this.total = null;
      return;
    }
    total.busy += after.busy - before.busy;
    total.idle += after.idle - before.idle;
    total.iowait += after.iowait - before.iowait;
    total.steal += after.steal - before.steal;
  }

  shares(): CpuShares | null {
    const { total } = this;
    if (total === null) return null;
    const all = total.busy + total.idle + total.iowait + total.steal;
    if (all <= 0) return null;
    const pct = (n: number) => Math.round((1000 * n) / all) / 10;
    return { busyPct: pct(total.busy), iowaitPct: pct(total.iowait), stealPct: pct(total.steal) };
  }
}
