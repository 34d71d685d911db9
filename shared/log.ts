/**
 * One pino root logger per process. Children carry request or job context; tokens,
 * Authorization headers and bodies are redacted wherever they appear.
 */
import { type Logger, pino } from 'pino';

export type { Logger };

export interface LogOptions {
  level?: string;
  /** Human-readable output for local development (pino-pretty, a dev dependency). */
  pretty?: boolean;
  /** Synchronous writes: Lambda may freeze the process before an async buffer drains. */
  sync?: boolean;
  name?: string;
}

const REDACT = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'body',
  '*.body',
];

export function createLogger(options: LogOptions = {}): Logger {
  const base = {
    name: options.name ?? 'sluice',
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base, pino.destination({ dest: 1, sync: options.sync ?? false }));
}

/** A logger that drops everything; the default for library code that was given none. */
export const silentLogger: Logger = pino({ level: 'silent' });
