/** A pino logger whose lines a test can read back, parsed, instead of printing them. */
import { pino } from 'pino';
import type { Logger } from '../../shared/log.ts';

export interface CapturedLog {
  readonly log: Logger;
  readonly lines: Array<Record<string, unknown> & { level: number; msg: string }>;
  /** Lines at `warn` (pino level 40). */
  warnings(): CapturedLog['lines'];
}

export function captureLog(): CapturedLog {
  const lines: CapturedLog['lines'] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines, warnings: () => lines.filter((line) => line.level === 40) };
}
