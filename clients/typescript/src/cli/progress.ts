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

/** `42s`, `3m04s`, `2h05m`. */
export function formatEta(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

export function loadProgress(totalBytes: number, startPosition: number, startRows: number): LoadProgress {
  const bar = new SingleBar(
    {
      format: '{bar} {percentage}% | {rows} rows | {rate} rows/s | {done} of {size} | ETA {remaining}',
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 250,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  const started = performance.now();
  const payload = (position: number, rows: number) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round((rows - startRows) / seconds) : 0;
    // The rest of the file at the byte rate so far (cli-progress reserves `eta`); its own estimate prints "NULL"
    // and "INF" cut to their last letters before it has one.
    const bytesPerSecond = seconds > 0 ? (position - startPosition) / seconds : 0;
    const remaining = bytesPerSecond > 0 ? formatEta((totalBytes - position) / bytesPerSecond) : 'N/A';
    return { rows, rate, done: formatBytes(position), size: formatBytes(totalBytes), remaining };
  };
  bar.start(Math.max(totalBytes, 1), startPosition, payload(startPosition, startRows));
  return {
    update: (position, rows) => bar.update(position, payload(position, rows)),
    stop: () => bar.stop(),
  };
}
