import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { onlyResource, synthSluice } from './support/synth.ts';

const synth = synthSluice();
afterAll(() => synth.cleanup());
const { template } = synth;

describe('data bucket (docs/design.md, "Object layout": the single source of truth)', () => {
  it('is the only bucket', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
  });

  it('has versioning off: commits are put-if-absent of new keys, versions would only pin garbage', () => {
    const [, bucket] = onlyResource(template, 'AWS::S3::Bucket');
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
  });

  it('blocks all public access, encrypts at rest and refuses plain HTTP', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('aborts incomplete multipart uploads after one day', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: [{ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
      },
    });
  });

  it('is retained when the stack is deleted', () => {
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});
