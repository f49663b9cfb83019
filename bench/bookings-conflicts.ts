import '../scripts/quiet-sdk';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/**
 * Bookings under the conflict-faithful mode (shared/db/conflicts.ts): what
 * DynamoDB Local hides, two transactions on one item in flight together, is
 * cancelled as in AWS, with a round-trip delay per request (DYNAMO_LATENCY_MS,
 * default 10 ms here). Two shapes, each `n` bookings (default 40) sent at once
 * by one partner, over `rounds` fresh partners:
 *
 * - spread: every booking on its own slot: nothing but the partner is shared,
 *   so any conflict is a per-partner hot item;
 * - one slot: every booking on the same slot, of fewer seats than bookings:
 *   the seats' real contention, which must sell out exactly.
 *
 * Prints bookings per second for both, the conflicts the mode injected and
 * the bookings' retries. Expects the local stack up in this process;
 * `node --import tsx bench/bookings-conflicts.ts` boots one.
 */
export interface ConflictShape {
  name: string;
  sent: number;
  confirmed: number;
  soldOut: number;
  other: Record<string, number>;
  seconds: number;
  conflicts: number;
  /** Capacity of the slot (one-slot shape): confirmed must equal it. */
  capacity?: number;
}

export async function benchBookingConflicts(base: string, o: { n?: number; rounds?: number; latencyMs?: number } = {}) {
  const n = o.n ?? Number(process.env.BENCH_CONFLICT_BOOKINGS ?? 40);
  const rounds = o.rounds ?? Number(process.env.BENCH_CONFLICT_ROUNDS ?? 3);
  const latencyMs = o.latencyMs ?? Number(process.env.DYNAMO_LATENCY_MS ?? 10);
  const { accessStore } = await import('../shared/access/store');
  const { conflictMode, transactCounters } = await import('../shared/db/client');
  const { generatePaymentKey } = await import('../shared/bookings/payment-keys');
  const { addDays, localDate } = await import('../shared/kernel/time');
  const { importJWK } = await import('jose');
  const { signedBookingBody } = await import('./lib');

  async function tenant() {
    const p = await accessStore.createPartner({ name: `Conflict Bench ${randomUUID().slice(0, 6)}` });
    await accessStore.setRateLimit(p.partner.partner_id, 1_000_000);
    const key = p.testKey.key;
    const pay = await generatePaymentKey(p.partner.partner_id);
    const signing = await importJWK(pay.private_jwk, 'ES256');
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;
    const list = (await get('/adventures?limit=100')).data as { slug: string; bookable: boolean }[];
    let pack: any;
    for (const a of list.filter((x) => x.bookable)) {
      pack = (await get(`/adventures/${a.slug}`)).rate_packs.find(
        (rp: any) => rp.booking_mode === 'FLEXIBLE' && rp.min_travelers === 1 && rp.schedule.weekdays.length === 7 && rp.booking_window_days >= n + 2,
      );
      if (pack) break;
    }
    if (!pack) throw new Error('no FLEXIBLE pack for single travelers in the sandbox catalog');
    const bodies = async (dates: string[]) =>
      Promise.all(
        dates.map(async (date) => {
          const r = await fetch(`${base}/quotes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
            body: JSON.stringify({ rate_pack_id: pack.id, start_date: date, start_time: null, travelers: [{ age: 35 }] }),
          });
          const q: any = await r.json();
          if (r.status !== 201) throw new Error(`quote: HTTP ${r.status} ${JSON.stringify(q)}`);
          return signedBookingBody(q, pay.kid, signing);
        }),
      );
    return { key, pack, bodies };
  }

  async function shape(name: string, dates: (i: number) => string, capacity?: number): Promise<ConflictShape> {
    const out: ConflictShape = {
      name,
      sent: 0,
      confirmed: 0,
      soldOut: 0,
      other: {},
      seconds: 0,
      conflicts: 0,
      ...(capacity ? { capacity: capacity * rounds } : {}),
    };
    for (let r = 0; r < rounds; r++) {
      const t = await tenant();
      const prepared = await t.bodies(Array.from({ length: n }, (_, i) => dates(i)));
      conflictMode.enable({ latencyMs });
      const before = transactCounters.conflicts;
      const started = performance.now();
      const statuses = await Promise.all(
        prepared.map(async (body) => {
          const res = await fetch(`${base}/bookings`, { method: 'POST', headers: { authorization: `Bearer ${t.key}`, 'idempotency-key': randomUUID() }, body });
          const answer: any = await res.json();
          return res.status === 201 ? 'confirmed' : `${res.status} ${answer.code ?? ''}${answer.details?.reason ? ` ${answer.details.reason}` : ''}`;
        }),
      );
      out.seconds += (performance.now() - started) / 1000;
      out.conflicts += transactCounters.conflicts - before;
      conflictMode.disable();
      out.sent += statuses.length;
      for (const s of statuses) {
        if (s === 'confirmed') out.confirmed++;
        else if (/ booking\.slot\.unavailable sold_out$/.test(s)) out.soldOut++;
        else out.other[s] = (out.other[s] ?? 0) + 1;
      }
    }
    return out;
  }

  const today = localDate(new Date());
  const spread = await shape(`${n} bookings, one partner, ${n} slots`, (i) => addDays(today, 1 + i));
  const probe = await tenant();
  const capacity = probe.pack.schedule.daily_capacity as number;
  const oneSlot = await shape(`${n} bookings, one partner, one slot`, () => addDays(today, 5), capacity);
  return { n, rounds, latencyMs, spread, oneSlot, report: report([spread, oneSlot], latencyMs, rounds) };
}

export function report(rows: ConflictShape[], latencyMs: number, rounds: number): string {
  const line = (s: ConflictShape) =>
    `${s.name.padEnd(36)} ${(s.confirmed / s.seconds).toFixed(1).padStart(7)} bookings/s  ${(s.sent / s.seconds).toFixed(1).padStart(7)} answers/s  ` +
    `confirmed ${s.confirmed}/${s.sent}${s.capacity !== undefined ? ` (seats ${s.capacity})` : ''}  sold out ${s.soldOut}  ` +
    `conflicts (= retries) ${s.conflicts}  other ${JSON.stringify(s.other)}`;
  return [
    `Bookings under the conflict-faithful mode (DYNAMO_CONFLICTS=aws, ${latencyMs} ms per DynamoDB round trip), ${rounds} rounds, all in flight at once:`,
    '',
    ...rows.map(line),
  ].join('\n');
}

// Standalone: boots a local stack in this process, with the production seed catalog (and its sandbox snapshot), and prints the report.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const base = await (await import('./lib')).standaloneStack();
  const { importCatalog } = await import('../shared/catalog/operations');
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  await importCatalog(JSON.parse(readFileSync(join(import.meta.dirname, '..', 'data', 'catalog', 'production.json'), 'utf8')));
  console.log((await benchBookingConflicts(base)).report);
  process.exit(0);
}
