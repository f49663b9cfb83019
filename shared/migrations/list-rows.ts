import { accessStore } from '../access/store';
import { bookingStore } from '../bookings/store';
import { ENVS } from '../kernel/tenant';
import { quoteStore } from '../quotes/store';

/**
 * The lists a partner reads right after writing (GET /bookings, /quotes, /api-keys) were Queries of gsi1,
 * which lags its table in AWS; they are now rows in the table, read strongly consistent. This moves what
 * was written before to rows (docs/operations/deploying.md): run once after deploying that change
 * (`npm run -s admin -- data:list-rows`); the local stack runs it at every start. Idempotent: a second
 * run finds nothing left to move.
 */
export async function moveListsToRows(progress: (line: string) => void = () => undefined) {
  const moved = { bookings: 0, quotes: 0, keys: 0 };
  for (const p of await accessStore.listPartners()) {
    for (const env of ENVS) {
      moved.bookings += await bookingStore.moveToRows(p.partner_id, env);
      moved.quotes += await quoteStore.moveToRows(p.partner_id, env);
      moved.keys += await accessStore.moveKeysToRows(p.partner_id, env);
    }
    progress(`partner ${p.partner_id}: ${moved.bookings} booking(s), ${moved.quotes} quote(s), ${moved.keys} key(s) moved so far`);
  }
  return moved;
}
