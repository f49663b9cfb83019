import * as z from 'zod';
import { boundedMonth, singleLine } from '../http/bounds';
import { personal, pub } from '../http/data-class';
import { csvOf, Money, PageMeta, pageQuery } from '../http/schemas';
import { SETTLEMENT_STATUSES } from './model';
import { PERIOD_RE } from './period';

const Status = z.enum(SETTLEMENT_STATUSES).meta({ id: 'SettlementStatus', dataClass: 'public' });
const Month = pub(z.string().regex(PERIOD_RE, 'a month YYYY-MM'));
const Period = boundedMonth(Month);

export const PaymentInstructions = z
  .object({
    // The issuer's own details, printed on every invoice: public.
    transfer_expected: pub(z.boolean()).describe('false in test mode and for an invoice issued under the example (SPECIMEN) identity: make no transfer'),
    beneficiary: pub(z.string()).describe("The issuer's legal name, the transfer's beneficiary"),
    bank: pub(z.string()),
    rib: pub(z.string()).describe("The issuer's RIB (relevé d'identité bancaire), 24 digits"),
    amount: Money.describe('The total due'),
    due_date: pub(z.iso.date()),
    reference: pub(z.string()).describe('What the transfer quotes as its reference: the invoice number'),
  })
  .meta({ id: 'PaymentInstructions' });

export const Settlement = z
  .object({
    id: pub(z.uuid()),
    number: pub(z.string()).nullable().describe('Invoice number, assigned when the settlement is issued; null while DRAFT'),
    status: Status,
    test_mode: pub(z.boolean()).describe('true for sandbox settlements (own number series prefixed TEST-, nothing is due)'),
    period_start: pub(z.iso.date()).describe('First day of the month, Morocco time (Africa/Casablanca)'),
    period_end: pub(z.iso.date()).describe('Last day of the month'),
    currency: pub(z.literal('MAD')),
    total_due: Money.describe('Exact sum of the lines; the running total while DRAFT'),
    booking_count: pub(z.number().int()).describe('Bookings confirmed in the period'),
    line_count: pub(z.number().int()).describe('Lines: one per booking, plus adjustments for refunds of bookings invoiced earlier'),
    issued_at: pub(z.iso.datetime()).nullable(),
    issue_date: pub(z.iso.date()).nullable(),
    due_date: pub(z.iso.date()).nullable().describe('Issue date plus the payment term'),
    paid_at: pub(z.iso.datetime()).nullable(),
    transfer_reference: personal(z.string()).nullable().describe('The transfer that paid it, once PAID'),
    payment_instructions: PaymentInstructions.nullable().describe('How to pay it, as its invoice says: null while DRAFT'),
    links: z
      .object({
        invoice_pdf: pub(z.string()).nullable(),
        statement_csv: pub(z.string()).nullable(),
      })
      .describe('The documents, once stored: null while DRAFT, and for the seconds between the issue and the documents (settlement.issued follows them)'),
    created_at: pub(z.iso.datetime()),
    updated_at: pub(z.iso.datetime()),
  })
  .meta({ id: 'Settlement' });

export const SettlementPage = z.object({ data: z.array(Settlement), meta: PageMeta }).meta({ id: 'SettlementPage' });
export const SettlementList = z.object({ data: z.array(Settlement) }).meta({ id: 'SettlementList' });

export const SettlementListQuery = pageQuery.extend({
  status: csvOf(Status.options).describe('Comma-separated: DRAFT, ISSUED, PAID'),
  period_from: Period.optional().describe('Settlements of this month or later (YYYY-MM)'),
  period_to: Period.optional().describe('Settlements of this month or earlier (YYYY-MM)'),
});

export const SettlementIdParams = z.object({ id: pub(z.uuid()) });
export const SettlementLinesQuery = pageQuery;

export const RunSettlementsBody = z
  // Any month: one later than the latest closable is the domain's 422 settlement.period.not_closable, not a bad field.
  .object({ period: Month.optional().describe('Close the settlements up to this month; default: every open settlement, the running month included') })
  .strict()
  .optional()
  .meta({ id: 'RunSettlementsRequest' });

export const PaySettlementBody = z
  .object({ transfer_reference: personal(singleLine(z.string()).min(1).max(64)).optional().describe('Default: a generated SIMULATED-... reference') })
  .strict()
  .optional()
  .meta({ id: 'PaySettlementRequest' });

export const SettlementDocument = z.string().describe('The file').meta({ format: 'binary', dataClass: 'personal' });

export const SettlementLine = z
  .object({
    kind: pub(z.enum(['BOOKING', 'ADJUSTMENT'])).describe('A booking confirmed in the period, or the refund of a booking an earlier settlement invoiced'),
    booking_number: pub(z.string()),
    partner_reference: personal(z.string()),
    travel_date: pub(z.iso.date()),
    confirmed_at: pub(z.iso.datetime()).describe('When the booking was confirmed'),
    adventure: pub(z.string()).describe("The adventure's title"),
    status: pub(z.enum(['CONFIRMED', 'COMPLETED', 'CANCELLED', 'ADJUSTMENT'])).describe("The statement's Status column"),
    amount: Money.describe("What the line adds to the total due (the statement's AmountToChargeClient); negative for an adjustment"),
    charged_amount: Money.describe('What the customer was charged at booking'),
    refund_amount: Money,
    adjusts: z
      .object({ period: Month, number: pub(z.string()).nullable() })
      .nullable()
      .describe('ADJUSTMENT lines: the settlement (month and number) that invoiced the booking'),
  })
  .meta({ id: 'SettlementLine' });

export const SettlementLinePage = z.object({ data: z.array(SettlementLine), meta: PageMeta }).meta({ id: 'SettlementLinePage' });
