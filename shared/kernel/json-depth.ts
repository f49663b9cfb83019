/**
 * How deeply a request body may nest objects and arrays. The deepest body any route takes is 3 levels
 * (POST /bookings and POST /quotes: the body, `travelers`, a traveler); 64 is far above it and far below
 * what a recursive walk over a parsed value can take: jsonc-parser's visitor (the duplicate-key check),
 * the request log's redaction and JSON.stringify ran out of stack between 3 700 and 8 000 levels (issue 40).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Where a body first nests objects and arrays deeper than `max` levels: the offset of the bracket that opens
 * level `max + 1` (in bytes for bytes, in characters for text), or -1. One pass without recursion, brackets
 * inside strings skipped: it runs before any parser or walker sees the body. Brackets, quotes and backslashes
 * are ASCII, which UTF-8 never uses inside a multi-byte character, so bytes need no decoding first (and bytes
 * that are no UTF-8 are counted all the same). Malformed JSON is counted the same way.
 */
export function depthExceededAt(body: string | Uint8Array, max = MAX_JSON_DEPTH): number {
  const at = typeof body === 'string' ? (i: number) => body.charCodeAt(i) : (i: number) => body[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = at(i);
    if (inString) {
      // A backslash escapes the next character (\" among them).
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}
