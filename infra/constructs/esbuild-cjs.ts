/**
 * Lambda bundles are CommonJS, where `import.meta` is empty. Some packages
 * bundled from their ESM entry resolve files with `new URL(..., import.meta.url)`
 * at load (pdfkit does): the bundle defines it as the bundle file's own URL.
 * Used by the CDK (ServiceFunction), `npm run bundle-size` and the bundle test.
 */
export const IMPORT_META_URL_DEFINE = { 'import.meta.url': '__import_meta_url' };
export const IMPORT_META_URL_BANNER = "'use strict';const __import_meta_url = require('url').pathToFileURL(__filename).href;";

/**
 * Resolve packages through their ESM entry ("module") where they have one:
 * esbuild tree-shakes ES modules only, so the unused parts of zod (its
 * locales) and of the AWS SDK drop out of the bundle. The output stays CommonJS.
 */
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];
