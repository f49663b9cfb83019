import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdventureInput } from '../shared/catalog/import-format';

/** A catalog of `n` adventures derived from the seed: new ids, slugs, places, prices and popularity. */
export function syntheticCatalog(n: number, seed = 42): { adventures: AdventureInput[] } {
  const base = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'data', 'catalog', 'production.json'), 'utf8')) as { adventures: AdventureInput[] })
    .adventures;
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
  const adventures: AdventureInput[] = [];
  for (let i = 0; i < n; i++) {
    const t = base[i % base.length]!;
    const factor = 0.5 + rnd() * 1.5;
    adventures.push({
      ...t,
      id: randomUUID(),
      slug: `${t.slug}-${i}`,
      title: `${t.title} #${i}`,
      location: { lat: t.location.lat + (rnd() - 0.5), lng: t.location.lng + (rnd() - 0.5) },
      popularity: Math.floor(rnd() * 100_000),
      rating: Math.round((3.5 + rnd() * 1.5) * 10) / 10,
      active: true,
      rate_packs: t.rate_packs.map((rp) => ({
        ...rp,
        id: randomUUID(),
        age_brackets: rp.age_brackets.map((b) => ({ ...b, price: (Math.round(Number(b.price) * factor * 100) / 100).toFixed(2) })),
      })),
    });
  }
  return { adventures };
}
