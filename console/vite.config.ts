import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

/**
 * The partner console: a static app served at /console/ (the local stack; S3 + CloudFront in AWS).
 * Its runtime configuration (API base URL, Cognito) is ./config.json beside index.html, so one build
 * serves every deployment. Built with `npm run -s console:build` from the repository root.
 */
export default defineConfig({
  root,
  base: '/console/',
  plugins: [react()],
  // The app imports the SDK's generated types and operation table from ../sdk.
  server: { fs: { allow: [resolve(root, '..')] } },
  build: {
    outDir: resolve(root, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    // No inline script or style may reach the page: the CSP allows 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
