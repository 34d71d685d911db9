/** The `sluice` command (the package's bin) as a child process, with its output gathered. */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../clients/typescript/bin/sluice.js', import.meta.url));

export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): Buffer;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** With `stdin`, the command reads those bytes on its standard input, then its end. */
export function spawnCli(
  args: string[],
  env: { url: string; token: string },
  stdin?: Uint8Array,
): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, SLUICE_URL: env.url, SLUICE_TOKEN: env.token },
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (stdin) child.stdin!.end(stdin);
  const out: Buffer[] = [];
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => Buffer.concat(out), stderr: () => err, exited };
}

/** Runs the command to its end: its exit code and output. */
export async function runCli(args: string[], env: { url: string; token: string }, stdin?: Uint8Array) {
  const cli = spawnCli(args, env, stdin);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
