import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/**
 * A settlement of `n` bookings (BENCH_SETTLEMENT_BOOKINGS, default 10 000):
 * its ledger is staged for last month (BatchWriteItem; no booking can be
 * confirmed in the past), then the monthly job runs for the tenant as the
 * queue consumer does (sum and check the lines, take the number, render and
 * store the PDF and the CSV, record settlement.issued). Prints the job time,
 * the peak memory while it ran, and the documents' sizes and render times.
 * Expects the local stack to be up in this process.
 */
export async function benchSettlement(n = Number(process.env.BENCH_SETTLEMENT_BOOKINGS ?? 10_000)) {
  const { accessStore } = await import('../shared/access/store');
  const { batchWrite } = await import('../shared/db/batch');
  const { dataTable } = await import('../shared/db/client');
  const { settlementKeys } = await import('../shared/settlements/keys');
  const { settleTenant } = await import('../shared/settlements/issue');
  const { settlementStore } = await import('../shared/settlements/store');
  const { renderInvoice } = await import('../shared/settlements/pdf');
  const { renderStatement } = await import('../shared/settlements/csv');
  const { periodOf, periodStart, previousPeriod } = await import('../shared/settlements/period');
  const { settlementSettings } = await import('../shared/settlements/config');
  type LedgerLine = import('../shared/settlements/model').LedgerLine;

  const { partner } = await accessStore.createPartner({ name: 'Bench Settlement Bank' });
  await accessStore.setLegalIdentity(partner.partner_id, {
    legal_name: 'Banque Bench SA',
    legal_address: 'Avenue Hassan II, Rabat',
    legal_ice: '002345678000012',
  });
  const period = previousPeriod(periodOf(new Date()));
  const start = Date.parse(`${periodStart(period)}T00:00:00Z`);
  const titles = [
    'Marrakech medina and souks guided walking tour',
    'Erg Chebbi overnight camel trek',
    'Randonnée à Imlil, déjeuner berbère',
    'رحلة إلى الصحراء',
  ];
  let total = 0;
  const lines: LedgerLine[] = Array.from({ length: n }, (_, i) => {
    const charged = 20_000 + ((i * 7919) % 180_000);
    const cancelled = i % 10 === 0;
    const refund = cancelled ? Math.floor(charged / 2) : 0;
    total += charged - refund;
    return {
      kind: 'BOOKING',
      booking_number: `PTB-${String(i).padStart(4, '0').slice(-4)}-${randomUUID().slice(0, 4).toUpperCase()}`,
      partner_reference: `BANK-${period}-${String(i).padStart(6, '0')}`,
      travel_date: periodStart(period),
      confirmed_at: new Date(start + (i * 86_400_000 * 27) / n + 3_600_000).toISOString(),
      adventure: titles[i % titles.length]!,
      status: cancelled ? 'CANCELLED' : i % 3 === 0 ? 'COMPLETED' : 'CONFIRMED',
      amount_minor: charged - refund,
      charged_minor: charged,
      refund_minor: refund,
      updated_at: new Date(start).toISOString(),
    };
  });
  let t = performance.now();
  await batchWrite(
    dataTable,
    lines.map((l) => ({
      PutRequest: { Item: { ...settlementKeys.bookingLine(partner.partner_id, 'live', period, l.booking_number), type: 'ledger_line', ...l } },
    })),
  );
  const now = new Date().toISOString();
  const id = randomUUID();
  await batchWrite(dataTable, [
    {
      PutRequest: {
        Item: {
          ...settlementKeys.header(partner.partner_id, 'live', period),
          ...settlementKeys.byId(id),
          type: 'settlement',
          id,
          partner_id: partner.partner_id,
          env: 'live',
          period,
          status: 'DRAFT',
          currency: 'MAD',
          total_minor: total,
          line_count: n,
          booking_count: n,
          created_at: now,
          updated_at: now,
        },
      },
    },
  ]);
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
  const run = await settleTenant(partner.partner_id, 'live', period);
  const jobMs = performance.now() - t;
  clearInterval(sampler);
  const s = run.settlements[0];
  if (!s || s.total_minor !== total || s.documents_status !== 'READY') throw new Error('bench settlement was not issued as expected');

  // The documents again, each on its own, for their render times (the job rendered the same bytes).
  const stored = await settlementStore.lines(partner.partner_id, 'live', period);
  t = performance.now();
  const pdf = await renderInvoice(s, stored, settlementSettings().SETTLEMENT_INVOICE_MAX_ROWS);
  const pdfMs = performance.now() - t;
  t = performance.now();
  const csv = renderStatement(s, stored);
  const csvMs = performance.now() - t;
  if (pdf.length !== s.documents!.invoice.bytes || csv.length !== s.documents!.statement.bytes)
    throw new Error('re-rendered documents differ from the stored ones');
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(2)} MB`;
  return [
    `Settlement of ${n} bookings (${n / 10} cancelled before the issue; ledger staged in ${stageSecs.toFixed(1)} s):`,
    `  job (sum ${n} lines, take ${s.number}, render and store PDF and CSV, settlement.issued): ${(jobMs / 1000).toFixed(1)} s`,
    `  peak memory during the job: rss ${mb(peakRss)} (+${mb(peakRss - before.rss)}), heap used ${mb(peakHeap)} (+${mb(peakHeap - before.heapUsed)})`,
    `  invoice PDF: ${mb(pdf.length)}, ${pdf.length > settlementSettings().SETTLEMENT_INLINE_MAX_BYTES ? '303 link' : 'served inline'}; render ${(pdfMs / 1000).toFixed(1)} s (summary page + annex of ${n} rows)`,
    `  statement CSV: ${mb(csv.length)}; render ${csvMs.toFixed(0)} ms`,
    `  deterministic: the re-rendered PDF and CSV have the stored sizes (${s.documents!.invoice.sha256.slice(0, 12)}...)`,
  ].join('\n');
}
