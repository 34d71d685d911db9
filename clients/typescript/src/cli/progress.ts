/**
 * The load's progress bar on stderr: bytes of the file, rows, rows per second and ETA. Off
 * a terminal it prints one line per update, a few times a second, so logs and tests see it.
 */
import { Presets, SingleBar } from 'cli-progress';

export interface LoadProgress {
  update(position: number, rows: number): void;
  stop(): void;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}

export function loadProgress(totalBytes: number, startPosition: number, startRows: number): LoadProgress {
  const bar = new SingleBar(
    {
      format: '{bar} {percentage}% | {rows} rows | {rate} rows/s | {done} of {size} | ETA {eta_formatted}',
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 250,
      etaBuffer: 50,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  const started = performance.now();
  const payload = (position: number, rows: number) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round((rows - startRows) / seconds) : 0;
    return { rows, rate, done: formatBytes(position), size: formatBytes(totalBytes) };
  };
  bar.start(Math.max(totalBytes, 1), startPosition, payload(startPosition, startRows));
  return {
    update: (position, rows) => bar.update(position, payload(position, rows)),
    stop: () => bar.stop(),
  };
}
