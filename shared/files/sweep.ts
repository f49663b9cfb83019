import { fileKeys } from './keys';
import type { FileRecord } from './model';
import { photoObjects } from './objects';
import { fileStore } from './store';

/**
 * Deletes the files never attached to a review (or detached, or rejected)
 * once they expire: the served objects, the pending object if any, and the
 * record. The bucket's lifecycle rule expires pending/ on its own as well.
 */
export async function sweepFiles(now = new Date()): Promise<{ deleted: number }> {
  let deleted = 0;
  for await (const page of fileStore.expired(now)) {
    for (const item of page) {
      const id = item.id as string;
      const objectKey = item.object_key as string | undefined;
      const renditions = item.renditions as FileRecord['renditions'];
      if (!(await fileStore.deleteIfOpen(id, now))) continue;
      // The display size and the thumbnail (a photo accepted before re-encoding has only its object_key).
      for (const key of new Set([objectKey, renditions?.display.key, renditions?.thumbnail.key])) if (key) await photoObjects.delete(key);
      await photoObjects.delete(fileKeys.pendingObject(id));
      deleted++;
    }
  }
  return { deleted };
}
