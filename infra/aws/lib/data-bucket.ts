/**
 * The one bucket that holds every byte of Sluice's data (docs/design.md, "Object layout"), and the only S3
 * access any Sluice process gets: read, write and delete objects under the store prefix, and
 * list the bucket only for keys under that prefix.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export interface DataBucketProps {
  /** Key prefix of the store, without slashes at either end. */
  storePrefix: string;
}

/** Every S3 call the object store makes: Get/Head, conditional Put, Delete, ListObjectsV2. */
export const STORE_OBJECT_ACTIONS = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] as const;
export const STORE_LIST_ACTION = 's3:ListBucket';

export class DataBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly storePrefix: string;
  /** `SLUICE_STORE_URL`. */
  readonly storeUrl: string;

  constructor(scope: Construct, id: string, props: DataBucketProps) {
    super(scope, id);
    this.storePrefix = props.storePrefix;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      // Every commit is a put-if-absent of a new key; nothing is overwritten in place, so
      // versions would only keep garbage-collected WAL entries and L0 files alive.
      versioned: false,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // The store is the single source of truth: deleting the stack never deletes the data.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.storeUrl = `s3://${this.bucket.bucketName}/${this.storePrefix}`;
  }

  /** Least privilege for a Sluice process: the store prefix and nothing else of S3. */
  grantStoreAccess(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SluiceStoreObjects',
        actions: [...STORE_OBJECT_ACTIONS],
        resources: [this.bucket.arnForObjects(`${this.storePrefix}/*`)],
      }),
    );
    // Listing only under the prefix. `IfExists` because S3 also checks ListBucket to decide
    // whether a GET/HEAD of a missing key answers 404 or 403, and that check carries no
    // s3:prefix: with a plain StringLike every absent key (a WAL hole, an unknown table) would
    // read as AccessDenied instead of "not found". A listing naming another prefix is refused.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SluiceStoreList',
        actions: [STORE_LIST_ACTION],
        resources: [this.bucket.bucketArn],
        conditions: { StringLikeIfExists: { 's3:prefix': [`${this.storePrefix}/*`] } },
      }),
    );
  }
}
