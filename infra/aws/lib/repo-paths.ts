/** Paths in the repository this CDK app deploys, independent of the working directory. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file is infra/aws/lib/repo-paths.ts. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Relative to REPO_ROOT, which is the build context of both images. */
export const WORKER_DOCKERFILE = 'infra/aws/docker/Dockerfile';
export const FUNCTION_DOCKERFILE = 'infra/aws/docker/lambda.Dockerfile';
export const LAMBDA_BUNDLE_SCRIPT = 'infra/aws/lib/lambda-bundle.ts';
