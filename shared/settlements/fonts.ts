import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The invoice's fonts: DejaVu Sans (npm package dejavu-fonts-ttf), a Unicode
 * TrueType font with Latin accents, N°, and Arabic. PDF's standard fonts are
 * not used: they cover Latin-1 only and pdfkit loads them from files that a
 * bundle does not carry. The Lambda bundle ships the TTF files in fonts/ (the
 * CDK copies them there and sets PDF_FONT_DIR); elsewhere they are read from
 * the package in node_modules.
 */
export const FONT_FILES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;
export const FONT_PACKAGE_DIR = join('node_modules', 'dejavu-fonts-ttf', 'ttf');

export const fontDir = () => process.env.PDF_FONT_DIR ?? join(process.cwd(), FONT_PACKAGE_DIR);

let loaded: { regular: Buffer; bold: Buffer } | undefined;

export function fonts(): { regular: Buffer; bold: Buffer } {
  if (!loaded) {
    const dir = fontDir();
    try {
      loaded = { regular: readFileSync(join(dir, FONT_FILES.regular)), bold: readFileSync(join(dir, FONT_FILES.bold)) };
    } catch (e) {
      throw new Error(`invoice fonts not found in ${dir} (set PDF_FONT_DIR): ${(e as Error).message}`);
    }
  }
  return loaded;
}
