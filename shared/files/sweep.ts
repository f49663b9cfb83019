import { fileKeys } from './keys';
import { photoObjects } from './objects';
import { fileStore } from './store';

/**
 * Deletes the files never attached to a review (or detached, or rejected)
 * once they expire: the served object, the pending object if any, and the
 * record. The bucket's lifecycle rule expires pending/ on its own as well.
 */
export async function sweepFiles(now = new Date()): Promise<{ deleted: number }> {
  let deleted = 0;
  for await (const page of fileStore.expired(now)) {
    for (const item of page) {
      const id = item.id as string;
      const objectKey = item.object_key as string | undefined;
      if (!(await fileStore.deleteIfOpen(id))) continue;
      if (objectKey) await photoObjects.delete(objectKey);
      await photoObjects.delete(fileKeys.pendingObject(id));
      deleted++;
    }
  }
  return { deleted };
}
