/**
 * A Sluice entry point as a real child process (`node --import tsx <script>`), with its
 * JSON log lines parsed as they arrive, so tests can wait for what it says and stop or
 * kill it where they want.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { waitFor } from './wait-for.ts';

export interface LogLine {
  time: number;
  pid: number;
  msg: string;
  level: number;
  [key: string]: unknown;
}

export interface LoggedProcess {
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  readonly exited: Promise<number | null>;
  /** The first line `match` accepts; fails at once, with the process's output, if it exits. */
  waitForLine(match: (line: LogLine) => boolean, message: string, timeoutMs?: number): Promise<LogLine>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnLogged(script: string, args: string[], env: NodeJS.ProcessEnv): LoggedProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let other = '';
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      other += `${text}\n`;
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    other += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    waitForLine(match, message, timeoutMs = 20_000) {
      return waitFor(
        () => {
          if (child.exitCode !== null)
            throw new Error(`${script} exited (${child.exitCode}): ${other.slice(-2000)}`);
          return lines.find(match);
        },
        { message, timeoutMs },
      );
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
