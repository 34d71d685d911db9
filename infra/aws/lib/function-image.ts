/**
 * The HTTP functions' container image, built from infra/aws/docker/lambda.Dockerfile by
 * `cdk deploy` (an image asset: synth only copies the build context, so synth and the tests
 * need no Docker), for one architecture: the image's platform, the Lambda's architecture and
 * the LanceDB native package the image installs all follow from it.
 */
import { IgnoreMode } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { imageContext } from './image-context.ts';
import { FUNCTION_DOCKERFILE, LAMBDA_BUNDLE_SCRIPT, REPO_ROOT } from './repo-paths.ts';
import type { CpuArchitectureName } from './settings.ts';

/** The build also runs the bundler script, which lives with the CDK app. */
export const FUNCTION_IMAGE_CONTEXT = imageContext([FUNCTION_DOCKERFILE, LAMBDA_BUNDLE_SCRIPT]);

/** The Lambda base image is Amazon Linux (glibc), so the gnu builds. */
export const LANCEDB_NATIVE: Record<CpuArchitectureName, string> = {
  x86_64: '@lancedb/lancedb-linux-x64-gnu',
  arm64: '@lancedb/lancedb-linux-arm64-gnu',
};

export function functionImage(arch: CpuArchitectureName): {
  code: lambda.DockerImageCode;
  architecture: lambda.Architecture;
} {
  return {
    code: lambda.DockerImageCode.fromImageAsset(REPO_ROOT, {
      file: FUNCTION_DOCKERFILE,
      exclude: FUNCTION_IMAGE_CONTEXT,
      ignoreMode: IgnoreMode.DOCKER,
      platform: arch === 'arm64' ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
      buildArgs: { LANCEDB_NATIVE: LANCEDB_NATIVE[arch] },
    }),
    architecture: arch === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64,
  };
}
