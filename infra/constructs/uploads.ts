import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectLockRetention } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { BUCKETS, type BucketDef } from '../../shared/buckets';

/** The service's buckets (settlement documents; presigned uploads), from shared/buckets.ts: encrypted, private, TLS only, access-logged. */
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
    for (const [key, def] of defs) {
      this.buckets[key] = new Bucket(this, `${key}Bucket`, {
        versioned: def.versioned ?? false,
        ...(def.retainYears
          ? { objectLockEnabled: true, objectLockDefaultRetention: ObjectLockRetention.governance(Duration.days(Math.ceil(def.retainYears * 365.25))) }
          : {}),
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
