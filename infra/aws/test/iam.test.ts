import { afterAll, describe, expect, it } from 'vitest';
import { STORE_LIST_ACTION, STORE_OBJECT_ACTIONS } from '../lib/data-bucket.ts';
import { resourcesOf, synthSluice } from './support/synth.ts';

const synth = synthSluice();
afterAll(() => synth.cleanup());
const { template } = synth;

type Statement = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};
type PolicyProps = { PolicyDocument: { Statement: Statement[] }; Roles: Array<{ Ref: string }> };

const policies = resourcesOf(template, 'AWS::IAM::Policy').map(
  ([id, r]) => [id, r.Properties as unknown as PolicyProps] as const,
);
const statements = policies.flatMap(([, p]) => p.PolicyDocument.Statement);
const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOfStatement = (s: Statement) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);
const s3Statements = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
const bucketRef = ['DataBucket', 'Arn'];

/** Roles whose policy has the store statements: the function's and one task role per worker group. */
function rolesWithStoreAccess(): string[] {
  return policies
    .filter(([, p]) => p.PolicyDocument.Statement.some((s) => s.Sid === 'SluiceStoreObjects'))
    .flatMap(([, p]) => p.Roles.map((r) => r.Ref));
}

describe('least privilege: S3 (the store prefix, nothing else)', () => {
  it('grants S3 to the function role and each of the three worker task roles, and to nobody else', () => {
    const roles = rolesWithStoreAccess();
    expect(roles).toHaveLength(4);
    expect(roles.filter((r) => r.startsWith('FunctionsFunction'))).toHaveLength(1);
    expect(roles.filter((r) => /^Workers\w+TaskTaskRole/.test(r))).toHaveLength(3);
    const s3Roles = policies
      .filter(([, p]) =>
        p.PolicyDocument.Statement.some((s) => actionsOf(s).some((a) => a.startsWith('s3:'))),
      )
      .flatMap(([, p]) => p.Roles.map((r) => r.Ref));
    expect(s3Roles.sort()).toEqual(roles.sort());
  });

  it('allows only GetObject, PutObject, DeleteObject on objects under the prefix', () => {
    const objects = s3Statements.filter((s) => s.Sid === 'SluiceStoreObjects');
    expect(objects).toHaveLength(4);
    for (const s of objects) {
      expect(s.Effect).toBe('Allow');
      expect(actionsOf(s).sort()).toEqual([...STORE_OBJECT_ACTIONS].sort());
      expect(resourcesOfStatement(s)).toEqual([
        { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^DataBucket/), 'Arn'] }, '/sluice/*']] },
      ]);
    }
  });

  it('allows ListBucket on the bucket only for keys under the prefix', () => {
    const lists = s3Statements.filter((s) => s.Sid === 'SluiceStoreList');
    expect(lists).toHaveLength(4);
    for (const s of lists) {
      expect(actionsOf(s)).toEqual([STORE_LIST_ACTION]);
      expect(resourcesOfStatement(s)).toEqual([
        { 'Fn::GetAtt': [expect.stringMatching(/^DataBucket/), 'Arn'] },
      ]);
      expect(s.Condition).toEqual({ StringLikeIfExists: { 's3:prefix': ['sluice/*'] } });
    }
  });

  it('has no other S3 statement, no s3 wildcard action and no "*" resource for S3 anywhere', () => {
    expect(s3Statements.every((s) => s.Sid === 'SluiceStoreObjects' || s.Sid === 'SluiceStoreList')).toBe(
      true,
    );
    for (const s of s3Statements) {
      for (const action of actionsOf(s)) expect(action).not.toContain('*');
      for (const resource of resourcesOfStatement(s)) {
        expect(resource).not.toBe('*');
        expect(JSON.stringify(resource)).toContain(bucketRef[0]);
      }
    }
    expect(statements.flatMap(actionsOf)).not.toContain('*');
  });

  it('attaches no managed policy that reaches S3 (only the Lambda VPC execution role)', () => {
    const managed = resourcesOf(template, 'AWS::IAM::Role').flatMap(([, r]) =>
      ((r.Properties.ManagedPolicyArns as unknown[]) ?? []).map((arn) => JSON.stringify(arn)),
    );
    for (const arn of managed)
      expect(arn).toMatch(/AWSLambdaBasicExecutionRole|AWSLambdaVPCAccessExecutionRole/);
  });
});

describe('least privilege: metrics', () => {
  it('grants no CloudWatch API: the sampler publishes metrics as Embedded Metric Format log lines', () => {
    expect(statements.filter((s) => actionsOf(s).some((a) => a.startsWith('cloudwatch:')))).toEqual([]);
  });
});
