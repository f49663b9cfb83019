import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTE_LIST } from '../../shared/routes';
import { generate, methodsTable, readmeWith } from '../scripts/generate';
import { OPERATIONS, RESOURCES } from '../src/generated/operations';

describe('the generated SDK files', () => {
  it('are what `npm run sdk:generate` makes of the route table today (run it after changing routes)', async () => {
    const files = await generate();
    for (const [name, text] of Object.entries(files)) {
      const committed = readFileSync(join(import.meta.dirname, '..', 'src', 'generated', name), 'utf8');
      expect(committed === text, `sdk/src/generated/${name} is stale: run npm run sdk:generate and commit the result`).toBe(true);
    }
  }, 60_000);

  it('list every method in the SDK README, each under the name the client exposes (run npm run sdk:generate after changing routes)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    expect(readmeWith(readme, methodsTable()) === readme, 'sdk/README.md method reference is stale: run npm run sdk:generate').toBe(true);
    const calls = [...readme.matchAll(/^\| `client\.(\w+)\.(\w+)` \| `(\w+) \/v1([^`]*)`/gm)];
    expect(calls).toHaveLength(Object.keys(OPERATIONS).length);
    for (const [, group, method, verb, path] of calls) {
      const id = (RESOURCES as Record<string, Record<string, string>>)[group!]?.[method!] as keyof typeof OPERATIONS;
      expect(OPERATIONS[id], `client.${group}.${method}`).toMatchObject({ method: verb, path });
    }
  });

  it('cover every route of the table', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(ROUTE_LIST.map((r) => r.id).sort());
  });
});
