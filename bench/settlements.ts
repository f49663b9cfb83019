import '../scripts/quiet-sdk';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { ledgerLines, stageDraft } from './ledger';

/** The bound the job's peak heap must stay under, whatever the number of bookings (the consumer's memory is set well above it). */
export const HEAP_BOUND_MB = 256;

/**
 * Settlements of 10 000 and 100 000 bookings (BENCH_SETTLEMENT_BOOKINGS, a
 * comma-separated list of sizes), one after the other, each for a tenant of
 * its own: the ledger is staged for last month (BatchWriteItem; no booking can
 * be confirmed in the past), then the monthly job runs for the tenant as the
 * queue consumer does (sum the lines, take the number, read the lines page by
 * page into a digest, render the invoice, stream the statement to S3, record
 * settlement.issued). Prints the job time, the peak heap above the start of
 * the job against HEAP_BOUND_MB, and the documents' sizes. Expects the local
 * stack to be up in this process.
 */
export async function benchSettlements(sizes = (process.env.BENCH_SETTLEMENT_BOOKINGS ?? '10000,100000').split(',').map(Number)) {
  const reports: string[] = [];
  for (const n of sizes) reports.push(await benchSettlement(n));
  return reports.join('\n\n');
}

/** `around` runs the job (the cost bench counts what it calls); by default it just runs it. */
export async function benchSettlement(n = 10_000, around: <T>(job: () => Promise<T>) => Promise<T> = (job) => job()) {
  const { accessStore } = await import('../shared/access/store');
  const { dataTable } = await import('../shared/db/client');
  const { settleTenant } = await import('../shared/settlements/issue');
  const { PART_BYTES } = await import('../shared/settlements/documents');
  const { periodOf, previousPeriod } = await import('../shared/settlements/period');
  const { settlementSettings } = await import('../shared/settlements/config');

  const { partner } = await accessStore.createPartner({ name: 'Bench Settlement Bank' });
  await accessStore.setLegalIdentity(partner.partner_id, {
    legal_name: 'Banque Bench SA',
    legal_address: 'Avenue Hassan II, Rabat',
    legal_ice: '002345678000012',
  });
  const period = previousPeriod(periodOf(new Date()));
  const lines = ledgerLines(n, period, {
    titles: ['Marrakech medina and souks guided walking tour', 'Erg Chebbi overnight camel trek', 'Randonnée à Imlil, déjeuner berbère', 'رحلة إلى الصحراء'],
    reference: (i) => `BANK-${period}-${String(i).padStart(6, '0')}`,
  });
  let t = performance.now();
  const { total } = await stageDraft(dataTable, partner.partner_id, 'live', period, lines);
  const stageSecs = (performance.now() - t) / 1000;

  // The job, with memory sampled every 20 ms.
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 20);
  t = performance.now();
  const run = await around(() => settleTenant(partner.partner_id, 'live', period));
  const jobMs = performance.now() - t;
  clearInterval(sampler);
  const s = run.settlements[0];
  if (!s || s.total_minor !== total || s.documents_status !== 'READY') throw new Error('bench settlement was not issued as expected');

  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MB`;
  const heapMb = (peakHeap - before.heapUsed) / 1024 / 1024;
  return [
    `Settlement of ${n} bookings (${n / 10} cancelled before the issue; ledger staged in ${stageSecs.toFixed(1)} s):`,
    `  job (sum ${n} lines, take ${s.number}, read them page by page, render the invoice, stream the statement, settlement.issued): ${(jobMs / 1000).toFixed(1)} s`,
    `  peak memory during the job: heap used ${mb(peakHeap)} (+${mb(peakHeap - before.heapUsed)}; bound ${HEAP_BOUND_MB} MB: ${heapMb <= HEAP_BOUND_MB ? 'kept' : 'EXCEEDED'}), rss ${mb(peakRss)} (+${mb(peakRss - before.rss)})`,
    `  invoice PDF: ${mb(s.documents!.invoice.bytes)} (${n > settlementSettings().SETTLEMENT_INVOICE_MAX_ROWS ? 'summary, subtotals per week and per adventure; every line in the statement' : 'every line'}), ${s.documents!.invoice.bytes > settlementSettings().SETTLEMENT_INLINE_MAX_BYTES ? '303 link' : 'served inline'}`,
    `  statement CSV: ${mb(s.documents!.statement.bytes)} (${Math.ceil(s.documents!.statement.bytes / PART_BYTES)} part(s) of at most ${mb(PART_BYTES)}), ${s.documents!.statement.bytes > settlementSettings().SETTLEMENT_INLINE_MAX_BYTES ? '303 link' : 'served inline'}`,
  ].join('\n');
}

// Standalone (node --expose-gc --import tsx bench/settlements.ts): boots a local stack in this process and prints the report.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await (await import('./lib')).standaloneStack();
  for (const n of (process.env.BENCH_SETTLEMENT_BOOKINGS ?? '10000,100000').split(',').map(Number)) console.log(`${await benchSettlement(n)}\n`);
  process.exit(0);
}
