/** S3 buckets: created by the CDK uploads construct and by the local runtime on the S3 server. */
export interface BucketDef {
  name: string;
  envVar: string;
  /** Keep every version of every object. */
  versioned?: boolean;
  /** S3 Object Lock (governance mode): objects can be neither overwritten nor deleted for this many years. */
  retainYears?: number;
}

export const BUCKETS: Record<string, BucketDef> = {
  /** Issued settlement documents (PDF invoices, CSV statements): written once, kept 10 years (invoices are archived 10 years, CGI art. 211). */
  settlementDocuments: { name: 'settlement-documents', envVar: 'SETTLEMENT_BUCKET', versioned: true, retainYears: 10 },
};
