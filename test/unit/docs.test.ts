import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const architecture = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'architecture.md'), 'utf8');

describe("docs/architecture.md's access patterns", () => {
  it('name only key builders that exist in the keys modules', async () => {
    const modules: Record<string, Record<string, unknown>> = {
      accessKeys: (await import('../../shared/access/keys')).accessKeys,
      platformKeys: (await import('../../shared/platform/keys')).platformKeys,
      catalogKeys: (await import('../../shared/catalog/keys')).catalogKeys,
      inventoryKeys: (await import('../../shared/catalog/keys')).inventoryKeys,
      quoteKeys: (await import('../../shared/quotes/keys')).quoteKeys,
      eventKeys: (await import('../../shared/events/keys')).eventKeys,
      bookingKeys: (await import('../../shared/bookings/keys')).bookingKeys,
      webhookKeys: (await import('../../shared/webhooks/keys')).webhookKeys,
      jobKeys: (await import('../../shared/jobs/keys')).jobKeys,
      settlementKeys: (await import('../../shared/settlements/keys')).settlementKeys,
      reviewKeys: (await import('../../shared/reviews/keys')).reviewKeys,
      fileKeys: (await import('../../shared/files/keys')).fileKeys,
      requestLogKeys: (await import('../../shared/request-logs/keys')).requestLogKeys,
      clockKeys: (await import('../../shared/clock/keys')).clockKeys,
    };
    const rows = architecture.split('\n').filter((l) => /^\| .* \| `\w+Keys\./.test(l));
    expect(rows.length).toBeGreaterThan(30);
    // Every keys module has its patterns in the table.
    for (const mod of Object.keys(modules))
      expect(
        rows.some((r) => r.includes(`\`${mod}.`)),
        mod,
      ).toBe(true);
    for (const row of rows) {
      const cell = row.split(' | ').at(-1)!;
      let current = '';
      for (const [, mod, name] of cell.matchAll(/`(\w+Keys)?\.(\w+)`/g)) {
        current = mod ?? current;
        expect(modules[current], row).toBeDefined();
        expect(modules[current]![name!], `${current}.${name}`).toBeDefined();
      }
    }
  });
});

describe('docs/guides/console.md, true to the screens', () => {
  it("names the sandbox banner's colour as the console's stylesheet draws it (a dark rust-orange, not yellow)", () => {
    const root = resolve(import.meta.dirname, '..', '..');
    const css = readFileSync(resolve(root, 'console', 'src', 'styles.css'), 'utf8');
    const guide = readFileSync(resolve(root, 'docs', 'guides', 'console.md'), 'utf8');
    const hex = /--sandbox:\s*#([0-9a-f]{6})/i.exec(css)?.[1];
    expect(hex).toBeDefined();
    const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(hex!.slice(i, i + 2), 16)) as [number, number, number];
    // Dark (white text on it) and orange-red: red well above green, green above blue.
    expect(r).toBeGreaterThan(g * 1.5);
    expect(g).toBeGreaterThan(b);
    expect(Math.max(r, g, b)).toBeLessThan(200);
    expect(guide).toContain('dark rust-orange banner');
    expect(guide).not.toMatch(/yellow banner/i);
  });
});

describe('docs/guides/idempotency.md', () => {
  it('lists every write that acts outside its commit (effectsOutsideCommit), with what a retry after a crash answers', async () => {
    const { ROUTE_LIST } = await import('../../shared/routes');
    const guide = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'guides', 'idempotency.md'), 'utf8');
    const outside = ROUTE_LIST.filter((r) => r.effectsOutsideCommit);
    expect(outside.length).toBeGreaterThan(0);
    for (const r of outside) expect(guide, `${r.method} ${r.path}`).toContain(`| \`${r.method} ${r.path.replace(/^\/v1/, '')}\` |`);
    expect(guide).toContain(`${['Zero', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven'][outside.length]} writes act outside that commit`);
  });
});

describe('docs/guides/request-logs.md', () => {
  it("says which 404 request.route.not_found are in the log: a live key's test helper is (test/integration/request-logs.test.ts), a path no operation has is not", () => {
    const guide = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'guides', 'request-logs.md'), 'utf8').replace(/\s+/g, ' ');
    expect(guide).toMatch(/path that no operation has \(404 `request\.route\.not_found`, 405/);
    expect(guide).toMatch(
      /test helper \(`\/test-helpers\/\.\.\.`\) asked with a live key answers the same 404 `request\.route\.not_found`, but the key is yours: that request is in your live log/,
    );
  });
});
