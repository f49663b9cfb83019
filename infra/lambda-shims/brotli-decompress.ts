import { brotliDecompressSync } from 'node:zlib';

/**
 * Stands in for `brotli/decompress.js` (a pure-JS decoder with its 120 KB
 * dictionary, 475 KB minified) in the Lambda bundles: fontkit calls it only
 * for WOFF2 fonts, and Node has Brotli built in. Same contract: the
 * compressed bytes in, the decompressed bytes out.
 */
export default function decompress(buffer: Uint8Array, _outputSize?: number): Uint8Array {
  return new Uint8Array(brotliDecompressSync(buffer));
}
