/** Keys of uploaded files in the data table (docs/architecture.md, "Data model and access patterns", rows "uploaded file" and "open files"). */
export const fileKeys = {
  file: (id: string) => ({ pk: `FILE#${id}`, sk: 'FILE' }),
  /** gsi1 (sparse): files not attached to anything, by expiry; removed on attach, set again on detach. The sweep deletes the expired ones. */
  openPartition: 'FILES#OPEN',
  open: (expiresAt: string, id: string) => ({ gsi1pk: fileKeys.openPartition, gsi1sk: `${expiresAt}#${id}` }),
  /** Object keys in the photo bucket: uploads land under pending/, checked photos are served from photos/. */
  pendingObject: (id: string) => `pending/${id}`,
  photoObject: (id: string, extension: string) => `photos/${id}.${extension}`,
  thumbnailObject: (id: string, extension: string) => `photos/${id}-thumb.${extension}`,
  /** The file id of a pending object key, or undefined for any other key. */
  idOfPendingObject: (key: string) => /^pending\/([0-9a-f-]{36})$/.exec(key)?.[1],
  /** The file id of a key under photos/ shaped like one the validator writes, or undefined. */
  idOfPhotoObject: (key: string) => /^photos\/([0-9a-f-]{36})(?:-thumb)?\.[a-z]+$/.exec(key)?.[1],
};

/** The files' partitions, as dynamodb:LeadingKeys patterns (the route table's `dynamo`, shared/db/grants.ts). */
export const filePartitions = {
  file: 'FILE#*',
};
