import { createHash } from 'node:crypto';
import sharp, { type Sharp } from 'sharp';
import { PHOTO_DISPLAY_LONG_SIDE, PHOTO_MAX_INPUT_PIXELS, PHOTO_THUMBNAIL_LONG_SIDE, type PhotoType } from './config';

export interface Encoded {
  bytes: Buffer;
  /** Hex MD5 of the bytes: the ETag S3 gives the object a single PutObject stores (SSE-S3 or none). */
  md5: string;
  width: number;
  height: number;
}

/**
 * Decodes an uploaded photo and encodes it again, in its declared format, at
 * the display size and the thumbnail size (the long side at most
 * PHOTO_DISPLAY_LONG_SIDE and PHOTO_THUMBNAIL_LONG_SIDE, never upscaled),
 * turned upright by its EXIF orientation. Only pixels survive: no metadata
 * (EXIF with its GPS position, XMP, IPTC, comments; colours converted to
 * sRGB) and nothing appended after the image (HTML behind a PNG). Throws if
 * the bytes do not decode as an image, are truncated or declare more than
 * PHOTO_MAX_INPUT_PIXELS.
 */
export async function reencode(input: Uint8Array, type: PhotoType): Promise<{ display: Encoded; thumbnail: Encoded }> {
  const decoded = sharp(input, { failOn: 'error', limitInputPixels: PHOTO_MAX_INPUT_PIXELS, sequentialRead: true }).autoOrient();
  const [display, thumbnail] = await Promise.all([
    encode(decoded.clone(), type, PHOTO_DISPLAY_LONG_SIDE),
    encode(decoded.clone(), type, PHOTO_THUMBNAIL_LONG_SIDE),
  ]);
  return { display, thumbnail };
}

async function encode(image: Sharp, type: PhotoType, longSide: number): Promise<Encoded> {
  image.resize({ width: longSide, height: longSide, fit: 'inside', withoutEnlargement: true });
  if (type === 'image/jpeg') image.jpeg({ quality: 82, mozjpeg: true });
  else if (type === 'image/png') image.png({ compressionLevel: 9, adaptiveFiltering: true });
  else image.webp({ quality: 82 });
  const { data, info } = await image.toBuffer({ resolveWithObject: true });
  return { bytes: data, md5: createHash('md5').update(data).digest('hex'), width: info.width, height: info.height };
}
