import type { Env } from '../kernel/tenant';
import type { FilePurpose, PhotoType } from './config';

export type FileStatus = 'PENDING_UPLOAD' | 'READY' | 'REJECTED';
export type RejectionReason = 'type_mismatch' | 'unrecognized_type' | 'too_large' | 'empty';

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
  /** Set when READY: the served object (photos/...). */
  object_key?: string;
  /** The review the file is attached to. */
  attached_to?: string;
  created_at: string;
  upload_expires_at: string;
  /** When an unattached file is swept. */
  expires_at: string;
  checked_at?: string;
}
