/** Paths in the repository this CDK app deploys, independent of the working directory. */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file is infra/aws/lib/repo-paths.ts. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export const LAMBDA_ENTRY = join(REPO_ROOT, 'functions', 'lambda.ts');
export const LOCK_FILE = join(REPO_ROOT, 'package-lock.json');
/** Relative to REPO_ROOT, which is the worker image's build context. */
export const WORKER_DOCKERFILE = 'infra/aws/docker/Dockerfile';
/** Sluice's Lua commands, read from disk at run time (relative to REPO_ROOT). */
export const LUA_COMMANDS_DIR = 'shared/redis/commands';
