import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/kernel/errors';
import { ROUTE_LIST } from '../../shared/routes';

const readme = readFileSync(resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

describe('README', () => {
  it('lists every error code with its status', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(readme, code).toMatch(new RegExp(`\\| ${status} \\| \`${code.replaceAll('.', '\\.')}\` \\|`));
    }
  });
  it('documents every route', () => {
    for (const r of ROUTE_LIST) expect(readme, r.id).toContain(`\`${r.method} ${r.path.replace(/^\/v1/, '')}\``);
  });
});
