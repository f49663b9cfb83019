import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTE_LIST } from '../../shared/routes';
import { FACES, generate, methodsTable, readmeWith } from '../scripts/generate';
import { OPERATIONS, RESOURCES } from '../src/generated/operations';
import { createClient } from '../src/index';

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
    const calls = [...readme.matchAll(/^\| `client\.([\w.]+)` \| `(\w+) \/v1([^`]*)`/gm)];
    expect(calls).toHaveLength(Object.keys(OPERATIONS).length);
    const client = createClient({ apiKey: 'sk_test_abcdefabcdef_0123456789abcdef0123456789abcdef' }) as unknown as Record<string, Record<string, unknown>>;
    for (const [, call, verb, path] of calls) {
      const [group, method, ...rest] = call!.split('.');
      // A hand-written face (client.testHelpers.clock.get): a function of the client, over the operation FACES names.
      const face = Object.entries(FACES).find(([, f]) => f.call === call);
      const id = (face?.[0] ?? (RESOURCES as Record<string, Record<string, string>>)[group!]?.[method!]) as keyof typeof OPERATIONS;
      expect(OPERATIONS[id], `client.${call}`).toMatchObject({ method: verb, path });
      const fn = rest.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], client[group!]?.[method!]);
      expect(typeof fn, `client.${call}`).toBe('function');
    }
  });

  it('cover every route of the table', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(ROUTE_LIST.map((r) => r.id).sort());
  });
});
