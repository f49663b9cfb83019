import { RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { BUCKETS, type BucketDef } from '../../shared/buckets';

/** Buckets for presigned uploads (review photos), from shared/buckets.ts. */
export class UploadsConstruct extends Construct {
  readonly buckets: Record<string, Bucket> = {};

  constructor(scope: Construct, id: string, props: { buckets?: Record<string, BucketDef> } = {}) {
    super(scope, id);
    const defs = Object.entries(props.buckets ?? BUCKETS);
    if (defs.length === 0) return;
    const accessLogs = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const [key] of defs) {
      this.buckets[key] = new Bucket(this, `${key}Bucket`, {
        encryption: BucketEncryption.S3_MANAGED,
        blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
        enforceSSL: true,
        serverAccessLogsBucket: accessLogs,
        serverAccessLogsPrefix: `${key}/`,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    }
  }
}
