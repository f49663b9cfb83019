/** S3 buckets: created by the CDK uploads construct and by the local runtime on the S3 server. */

/**
 * What a function may do with a bucket's objects: write-multipart = write, with writes that may be multipart uploads
 * (and so abort one that failed: the settlement documents' writers, which never read them back); manage = read,
 * write and delete (the upload validator, the file sweep).
 */
export type BucketAccess = 'read' | 'put' | 'readwrite' | 'write-multipart' | 'manage';

/** A bucket's CORS rule (S3's CORSRule): which browser origins may call it, how, and what they may read of the answer. */
export interface BucketCors {
  allowedOrigins: string[];
  allowedMethods: ('GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE')[];
  /** Request headers a preflight may name (Access-Control-Request-Headers). */
  allowedHeaders?: string[];
  /** Response headers the page may read besides the CORS-safelisted ones. */
  exposedHeaders?: string[];
  maxAgeSeconds?: number;
}

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
  /** The bucket's CORS rule (S3 CORS in AWS; the local S3 server applies the same, infra/local/provision.ts). No rule: S3 refuses every preflight. */
  cors?: BucketCors;
}

/** The days of a bucket's Object Lock default retention (governance mode), as the CDK and the local stack set it. */
export const retentionDays = (def: BucketDef): number | undefined => (def.retainYears ? Math.ceil(def.retainYears * 365.25) : undefined);

/**
 * What a browser may do with a presigned link to a settlement document: the console downloads a document too large
 * to answer inline by following the API's 303 to it (shared/settlements/read.ts). That request is the console's
 * fetch redirected from the API's origin to S3's, a third one, so the browser sends it with `Origin: null` (the
 * Fetch standard's tainted origin), without its Authorization header, with its X-Environment: a preflight with
 * `Origin: null`. A rule naming the console's origin never matches it, and one naming `null` would admit any
 * sandboxed page just as well: `*` is the rule that works. It opens nothing: only a valid signature for one key reads
 * it (the link, valid 5 minutes, is the capability, which any client holding it can use without a browser), the
 * bucket is private and takes no cookies, and the rule allows GET and that one header only. The console reads the
 * file's name from Content-Disposition.
 */
export const DOCUMENT_LINK_CORS: BucketCors = {
  allowedOrigins: ['*'],
  allowedMethods: ['GET'],
  allowedHeaders: ['X-Environment'],
  exposedHeaders: ['Content-Disposition'],
};

/**
 * What a bank's web app may do with the photo bucket: POST the form of `POST /files` (its `upload`) from the
 * traveler's browser, S3's browser-based upload (S3 API Reference, "Browser-Based Uploads Using POST"). Any origin:
 * the banks' web apps are theirs, their origins unknown to the service, and the form's signed policy is what
 * authorizes the write (one key, the declared type, the size, the file's upload token, 15 minutes), not the page's
 * origin; CORS only decides whether the page may read the answer. POST only, no credentials (S3 sends none beside `*`).
 * A `fetch` of a FormData is a simple request (multipart/form-data is a CORS-safelisted type): not preflighted, the
 * page reads its status (S3's default success_action_status, 204) when the answer carries Allow-Origin. An
 * XMLHttpRequest with upload progress listeners is preflighted (the Fetch standard's use-CORS-preflight flag), with
 * POST and no request header: no AllowedHeaders, since every parameter of a POST upload is a form field; the hour of
 * max age lets one preflight serve the page's uploads (Chromium caps it at two). Nothing exposed: the page needs the
 * status only, the object it wrote is a pending one the validator replaces (its ETag and Location name nothing the
 * page can use), and the file's URLs come from `GET /files/{id}`.
 */
export const PHOTO_UPLOAD_CORS: BucketCors = {
  allowedOrigins: ['*'],
  allowedMethods: ['POST'],
  maxAgeSeconds: 3600,
};

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
  settlementDocuments: { name: 'settlement-documents', envVar: 'SETTLEMENT_BUCKET', versioned: true, retainYears: 10, cors: DOCUMENT_LINK_CORS },
  /**
   * Review photos. Partners upload with a presigned POST under pending/, from a server or a browser; the
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
    cors: PHOTO_UPLOAD_CORS,
  },
};
