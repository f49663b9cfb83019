import { defineRoutes } from '../http/route-def';
import { filePartitions } from './keys';
import { CreatedFile, CreateFileBody, FileIdParams, FileObject } from './schemas';

/** Files: presigned uploads of partner-supplied files (review photos), checked before use. */
export const fileRoutes = defineRoutes({
  createFile: {
    method: 'POST',
    path: '/v1/files',
    handler: 'functions/files/create.ts',
    access: 'key',
    scope: 'files:write',
    tag: 'Files',
    photoUrls: true,
    summary: 'Start an upload: a file record and its presigned S3 POST',
    description:
      'Send the file with a multipart/form-data POST to upload.url: every field of upload.fields first, then `file`. ' +
      'The object is then checked (real type = content_type, size within size_bytes and 5 MiB): GET /files/{id} shows PENDING_UPLOAD, READY or REJECTED. ' +
      'Attach READY files to a review with photo_ids; unattached files are deleted after expires_at.',
    request: { body: CreateFileBody },
    responses: { 201: { description: 'The file, PENDING_UPLOAD, with its upload form.', schema: CreatedFile } },
    buckets: { reviewPhotos: 'put' },
    dynamo: { data: { PutItem: [filePartitions.file] } },
  },
  getFile: {
    method: 'GET',
    path: '/v1/files/{id}',
    handler: 'functions/files/get.ts',
    access: 'key',
    scope: 'files:write',
    tag: 'Files',
    photoUrls: true,
    summary: 'One of your files, with the result of its check',
    description: 'PENDING_UPLOAD until the uploaded object is checked, then READY (with the photo URL) or REJECTED (with rejection_reason).',
    request: { params: FileIdParams },
    responses: { 200: { description: 'The file.', schema: FileObject } },
    dynamo: { data: { GetItem: [filePartitions.file] } },
  },
});
