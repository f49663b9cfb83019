import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTE_LIST } from '../../shared/routes';
import { generate } from '../scripts/generate';
import { OPERATIONS } from '../src/generated/operations';

describe('the generated SDK files', () => {
  it('are what `npm run sdk:generate` makes of the route table today (run it after changing routes)', async () => {
    const files = await generate();
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(join(import.meta.dirname, '..', 'src', 'generated', name), 'utf8');
      expect(committed === text, `sdk/src/generated/${name} is stale: run npm run sdk:generate and commit the result`).toBe(true);
    }
  }, 60_000);

  it('cover every route of the table', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(ROUTE_LIST.map((r) => r.id).sort());
  });
});
