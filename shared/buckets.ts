/** S3 buckets: created by the CDK uploads construct and by the local runtime on the S3 server. */

/**
 * What a function may do with a bucket's objects: readwrite-multipart = read and write, writes that may be multipart
 * uploads (and so abort one that failed: the settlement documents); manage = read, write and delete (the upload
 * validator, the file sweep).
 */
export type BucketAccess = 'read' | 'put' | 'readwrite' | 'readwrite-multipart' | 'manage';
export interface BucketDef {
  name: string;
  envVar: string;
  /** Keep every version of every object. */
  versioned?: boolean;
  /** S3 Object Lock (governance mode): objects can be neither overwritten nor deleted for this many years. */
  retainYears?: number;
  /** Objects created under each of `prefixes` are announced to the queue of shared/queues.ts named `queue` (S3 -> SQS in AWS; the local runtime forwards s3rver's events). */
  notify?: { prefixes: string[]; queue: string };
  /** Objects under `prefix` expire after `days` (an S3 lifecycle rule). */
  expire?: { prefix: string; days: number };
  /**
   * Objects under `prefix` are served publicly by a CDN (CloudFront with origin access control in AWS; the S3 server's URL locally),
   * with `headers` on every response (a CloudFront response headers policy; locally the S3 server adds them).
   */
  serve?: { prefix: string; headers: Record<string, string> };
}

/**
 * What every served photo response carries: the browser never sniffs another type than the stored image/*, and
 * whatever it is, it runs nothing (no script, no subresource, a sandboxed origin if it were ever opened as a document).
 */
export const SERVED_PHOTO_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; img-src 'self'; sandbox",
};

export const BUCKETS: Record<string, BucketDef> = {
  /** Issued settlement documents (PDF invoices, CSV statements): written once, kept 10 years (invoices are archived 10 years, CGI art. 211). */
  settlementDocuments: { name: 'settlement-documents', envVar: 'SETTLEMENT_BUCKET', versioned: true, retainYears: 10 },
  /**
   * Review photos. Partners upload with a presigned POST under pending/; the
   * validator checks each object and writes re-encoded renditions of the
   * good ones to photos/, which the CDN serves. It is told of photos/ too:
   * anything there it did not write is deleted. What stays under pending/
   * (never uploaded completely, never validated) expires after a day.
   */
  reviewPhotos: {
    name: 'review-photos',
    envVar: 'PHOTO_BUCKET',
    notify: { prefixes: ['pending/', 'photos/'], queue: 'uploads' },
    expire: { prefix: 'pending/', days: 1 },
    serve: { prefix: 'photos/', headers: SERVED_PHOTO_HEADERS },
  },
};
