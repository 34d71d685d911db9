/** What the local command-line entry points share: how they log and how they fail. */
import type { Config } from '../../shared/config.ts';
import { isSluiceError } from '../../shared/errors.ts';
import { createLogger, type Logger } from '../../shared/log.ts';

export function createCliLogger(config: Config): Logger {
  return createLogger({
    level: config.logLevel,
    pretty: config.logPretty || process.stdout.isTTY === true,
    sync: config.logSync,
  });
}

/**
 * Runs `main` and exits with the code it returns. An expected failure (a SluiceError, such
 * as no Redis to be had) is one line on stderr; anything else keeps its stack.
 */
export function runCli(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      const text = isSluiceError(err)
        ? err.message
        : err instanceof Error
          ? (err.stack ?? err.message)
          : String(err);
      process.stderr.write(`${name}: ${text}\n`);
      process.exit(1);
    },
  );
}
