/** S3 buckets: created by the CDK uploads construct and by the local runtime on the S3 server. */
export interface BucketDef {
  name: string;
  envVar: string;
}

export const BUCKETS: Record<string, BucketDef> = {};
