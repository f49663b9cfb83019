import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NamedAdventure } from '../../shared/reviews/rules';

export interface DemoPartner {
  partner_id: string;
  member_id: string;
  test_key: string;
  live_key: string;
  /** The demo admin's console sign-in (kept here, like the keys, so that every start can print it). */
  console_email?: string;
  console_password?: string;
}

const DEMO_ADMIN_EMAIL = 'demo-admin@demo-bank.example';

/** Where the demo partner's keys are kept, in the stack's state directory. */
export const demoPartnerFile = (stateDir: string) => join(stateDir, 'demo-partner.json');

/**
 * The demo partner created on first start. Its keys are kept in .local/ (never
 * committed) so that every start can print a working sandbox key; the service
 * itself stores only their hashes.
 */
export async function ensureDemoPartner(stateDir: string): Promise<DemoPartner> {
  const { accessStore } = await import('../../shared/access/store');
  const file = demoPartnerFile(stateDir);
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as DemoPartner;
    if (await accessStore.getPartner(demo.partner_id)) {
      // The printed keys must work: reissue one that an operator revoked.
      let changed = false;
      for (const env of ['test', 'live'] as const) {
        const field = env === 'test' ? 'test_key' : 'live_key';
        const key = await accessStore.getKey(demo[field].split('_')[2]!);
        if (!key || key.revoked_at) {
          demo[field] = (await accessStore.issueKey(demo.partner_id, demo.member_id, env)).key;
          changed = true;
        }
      }
      if (await ensureConsoleSignIn(demo)) changed = true;
      if (changed) writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
      return demo;
    }
  }
  const { catalogStore } = await import('../../shared/catalog/store');
  const { createPartnerWithConsole } = await import('../../shared/team/console-users');
  const created = await createPartnerWithConsole({
    name: 'Demo Bank',
    email: DEMO_ADMIN_EMAIL,
    sandboxCatalog: await catalogStore.currentSandboxScope(),
    suppressMail: true,
  });
  const demo: DemoPartner = {
    partner_id: created.partner.partner_id,
    member_id: created.member.member_id,
    test_key: created.testKey.key,
    live_key: created.liveKey.key,
  };
  await ensureConsoleSignIn(demo);
  writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/**
 * The demo admin signs in to the console with a printed password (a permanent
 * one: no temporary-password step) and enrols an authenticator at the first
 * sign-in. A demo partner made before the console gets its console user here.
 * Returns whether `demo` changed.
 */
async function ensureConsoleSignIn(demo: DemoPartner): Promise<boolean> {
  const { accessStore } = await import('../../shared/access/store');
  const { directory } = await import('../../shared/identity/directory');
  const { linkConsoleUser } = await import('../../shared/team/console-users');
  const member = await accessStore.getMember(demo.partner_id, demo.member_id);
  if (!member) return false;
  const linked = member.identity_id ? member : await linkConsoleUser(member);
  const user = await directory.get(linked.identity_id!);
  if (user && demo.console_password && user.status === 'CONFIRMED') return false;
  const { temporaryPassword } = await import('./cognito');
  demo.console_email = linked.email;
  demo.console_password = temporaryPassword();
  await directory.setPassword(linked.identity_id!, demo.console_password, true);
  return true;
}

/** On the first start, the production catalog and its consumer-site reviews are imported from data/. */
export async function ensureCatalog(progress: (line: string) => void = () => undefined): Promise<string> {
  const { catalogStore } = await import('../../shared/catalog/store');
  const { PROD } = await import('../../shared/catalog/keys');
  const meta = await catalogStore.meta(PROD);
  if (meta) return `${meta.adventure_count} adventures (index version ${meta.version})`;
  const { importCatalog } = await import('../../shared/catalog/operations');
  const { importConsumerReviews } = await import('../../shared/reviews/seed');
  const data = join(import.meta.dirname, '..', '..', 'data');
  // The longest step of a first start (20-40 s): said, so a start that has not answered yet is seen working.
  progress('Importing the catalog and its consumer reviews (the first start in a state directory)...');
  // Reviews first: the sandbox snapshot the catalog import creates clones them.
  const catalog = JSON.parse(readFileSync(join(data, 'catalog', 'production.json'), 'utf8')) as { adventures: NamedAdventure[] };
  let consumer = JSON.parse(readFileSync(join(data, 'reviews', 'consumer.json'), 'utf8')) as { reviews: { reviewable_id: string }[] };
  // LOCAL_CATALOG_ADVENTURES=N: the first N adventures and their reviews only (the test stacks of one file, which
  // need a catalog, not all of it: a quarter of the import's time).
  const limit = Number(process.env.LOCAL_CATALOG_ADVENTURES ?? 0);
  if (limit > 0 && limit < catalog.adventures.length) {
    catalog.adventures = catalog.adventures.slice(0, limit);
    const kept = JSON.stringify(catalog.adventures);
    consumer = { ...consumer, reviews: consumer.reviews.filter((r) => kept.includes(r.reviewable_id)) };
  }
  const reviews = await importConsumerReviews(consumer, catalog);
  const r = await importCatalog(catalog);
  return `${r.adventures} adventures imported from data/catalog/production.json, ${reviews.reviews} consumer reviews from data/reviews/consumer.json`;
}
