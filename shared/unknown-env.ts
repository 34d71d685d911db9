/** The start-up warning about `SLUICE_*` variables that no setting reads, which every entry point logs. */
import { unknownEnvNames } from './config.ts';
import type { Logger } from './log.ts';

export function warnUnknownEnv(log: Logger, env: NodeJS.ProcessEnv = process.env): void {
  const variables = unknownEnvNames(env);
  if (variables.length === 0) return;
  log.warn(
    { variables },
    `no setting reads ${variables.join(', ')}: check the spelling against the configuration table of the README`,
  );
}
