import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

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

const SHIMS = join(import.meta.dirname, '..', 'lambda-shims');

/**
 * Packages that every Lambda bundle replaces with a smaller equivalent that
 * does the same there (each shim says why): the credential chain reduced to
 * the environment variables Lambda sets, Node's own Brotli for fontkit, and
 * the one semver function the X-Ray SDK calls. They cut about 130 KB from
 * every function and 600 KB from those that render PDFs. The local runtime
 * and the tests run the real packages; test/unit/lambda-bundle.test.ts runs
 * the bundles.
 */
export const LAMBDA_BUNDLE_ALIASES: Record<string, string> = {
  '@aws-sdk/credential-provider-node': join(SHIMS, 'credentials.ts'),
  'brotli/decompress.js': join(SHIMS, 'brotli-decompress.ts'),
  semver: join(SHIMS, 'semver.cjs'),
};

/**
 * Packages with native binaries that no bundle can hold: esbuild leaves them
 * out, and the CDK installs them beside the bundle of a function that names
 * them (QueueDef `nodeModules`).
 */
export const LAMBDA_NODE_MODULES = ['sharp'];

/**
 * The esbuild options of every Lambda bundle, as ServiceFunction hands them
 * to the CDK's NodejsFunction; `npm run bundle-size` and the bundle tests
 * build with these.
 */
export const LAMBDA_ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  mainFields: BUNDLE_MAIN_FIELDS,
  define: IMPORT_META_URL_DEFINE,
  banner: { js: IMPORT_META_URL_BANNER },
  alias: LAMBDA_BUNDLE_ALIASES,
  external: LAMBDA_NODE_MODULES,
} satisfies BuildOptions;
