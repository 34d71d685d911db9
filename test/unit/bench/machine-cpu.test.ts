import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuTally, parseCpuTimes, readCpuTimes } from '../../bench/machine-cpu.ts';

/** /proc/stat with nice 10, system 30, irq 5, softirq 5 and guest 7 ticks beside the given ones. */
function stat(user: number, idle: number, iowait: number, steal: number): string {
  const summed = `cpu  ${user} 10 30 ${idle} ${iowait} 5 5 ${steal} 7 0`;
  return `${summed}\ncpu0 1 2 3 4 5 6 7 8 9 0\nintr 12345\n`;
}

describe('machine CPU figures of a write-bench line', () => {
  it('reads busy, idle, I/O-wait and steal ticks from the summed cpu line, leaving guest time out', () => {
    expect(parseCpuTimes(stat(100, 400, 20, 30))).toEqual({ busy: 150, idle: 400, iowait: 20, steal: 30 });
  });

  it('gives no figures for text without a complete cpu line', () => {
    expect(parseCpuTimes('cpu0 1 2 3 4 5 6 7 8\n')).toBeNull();
    expect(parseCpuTimes('cpu  1 2 3\n')).toBeNull();
  });

  it('sums its intervals and gives each share of all CPU time over them', () => {
    const tally = new CpuTally();
    tally.add(parseCpuTimes(stat(100, 400, 20, 30)), parseCpuTimes(stat(160, 420, 30, 40)));
    tally.add(parseCpuTimes(stat(500, 900, 50, 50)), parseCpuTimes(stat(540, 910, 50, 70)));
    // busy 60 + 40, idle 20 + 10, iowait 10 + 0, steal 10 + 20: 170 ticks in all.
    expect(tally.shares()).toEqual({ busyPct: 58.8, iowaitPct: 5.9, stealPct: 17.6 });
  });

  it('has no figures once one interval could not be read, rather than a share of part of the time', () => {
    const tally = new CpuTally();
    tally.add(parseCpuTimes(stat(100, 400, 20, 30)), parseCpuTimes(stat(160, 420, 30, 40)));
    tally.add(null, parseCpuTimes(stat(160, 420, 30, 40)));
    expect(tally.shares()).toBeNull();
    expect(new CpuTally().shares()).toBeNull();
  });

  it.runIf(existsSync('/proc/stat'))('reads this machine, whose CPU time only grows', () => {
    const before = readCpuTimes();
    for (const end = Date.now() + 30; Date.now() < end; );
    const after = readCpuTimes();
    expect(before).not.toBeNull();
    expect(after!.busy + after!.idle).toBeGreaterThan(before!.busy + before!.idle);
  });
});
