import type { Env } from '../kernel/tenant';
import type { FilePurpose, PhotoType } from './config';

export type FileStatus = 'PENDING_UPLOAD' | 'READY' | 'REJECTED';
export const REJECTION_REASONS = ['type_mismatch', 'unrecognized_type', 'too_large', 'empty', 'unreadable_image'] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** One re-encoded rendition the validator wrote under photos/: its key, the MD5 of its bytes (its S3 ETag) and its size. */
export interface Rendition {
  key: string;
  md5: string;
  width: number;
  height: number;
}

export interface FileRecord {
  id: string;
  partner_id: string;
  env: Env;
  purpose: FilePurpose;
  content_type: PhotoType;
  /** Declared size: the upload may not exceed it. */
  size_bytes: number;
  status: FileStatus;
  rejection_reason?: RejectionReason;
  /** Issued with the presigned POST: the uploaded object must carry it (UPLOAD_TOKEN_FIELD). Never shown. */
  upload_token?: string;
  /** Set when READY: the served object (photos/..., the display size). */
  object_key?: string;
  /**
   * What the validator wrote under photos/, recorded before it writes them:
   * an object created there whose ETag is not one of these is foreign and deleted.
   */
  renditions?: { display: Rendition; thumbnail: Rendition };
  /** The review the file is attached to. */
  attached_to?: string;
  created_at: string;
  upload_expires_at: string;
  /** When an unattached file is swept. */
  expires_at: string;
  checked_at?: string;
}
