/** Where a page loads anything from another origin: a script, style, image, font or frame source. */
export function externalLoads(html: string): string[] {
  const found = [...html.matchAll(/<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)=["']?((?:https?:)?\/\/[^"'\s>]+)/gi)].map((m) => m[1]!);
  const css = [...html.matchAll(/@import\s+(?:url\()?["']?((?:https?:)?\/\/[^"')\s]+)/gi)].map((m) => m[1]!);
  return [...found, ...css];
}
