/**
 * The worker container image. By default it is built from infra/aws/docker/Dockerfile by
 * `cdk deploy` (an image asset: synth only copies the build context, so synth and the tests
 * need no Docker); `-c workerImage=<uri>` uses an image built elsewhere instead.
 */
import { Arn, IgnoreMode, Stack } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type { Construct } from 'constructs';
import { imageContext } from './image-context.ts';
import { REPO_ROOT, WORKER_DOCKERFILE } from './repo-paths.ts';
import type { CpuArchitectureName } from './settings.ts';

/** The worker's Dockerfile is the one file of infra/aws its build needs. */
export const WORKER_IMAGE_CONTEXT = imageContext([WORKER_DOCKERFILE]);

const ECR_IMAGE =
  /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([^:@]+)(?::([^@]+))?(?:@(sha256:[0-9a-f]{64}))?$/;

export function workerImage(
  scope: Construct,
  uri: string | undefined,
  arch: CpuArchitectureName,
): ecs.ContainerImage {
  if (uri === undefined) {
    return ecs.ContainerImage.fromAsset(REPO_ROOT, {
      file: WORKER_DOCKERFILE,
      exclude: WORKER_IMAGE_CONTEXT,
      ignoreMode: IgnoreMode.DOCKER,
      platform: arch === 'arm64' ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
    });
  }
  const ecrImage = ECR_IMAGE.exec(uri);
  if (ecrImage === null) return ecs.ContainerImage.fromRegistry(uri);
  // An ECR image: referenced through the repository so the execution role is granted the pull.
  const [, account, region, name, tag, digest] = ecrImage;
  const repository = ecr.Repository.fromRepositoryAttributes(scope, 'WorkerRepository', {
    repositoryName: name!,
    repositoryArn: Arn.format(
      { service: 'ecr', account, region, resource: 'repository', resourceName: name! },
      Stack.of(scope),
    ),
  });
  return ecs.ContainerImage.fromEcrRepository(repository, digest ?? tag ?? 'latest');
}
