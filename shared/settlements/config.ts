import * as z from 'zod';
import { loadConfig } from '../kernel/config';
import type { IssuerIdentity } from './model';

/**
 * Settlement settings, from the environment (the CDK stack and the local
 * runtime set them). The issuer's identity defaults to the example company
 * of the local stack; a deployment must set its own (docs/operations/deploying.md,
 * "The issuer's legal identity").
 */
const settlementConfig = z.object({
  ISSUER_NAME: z.string().min(1).default('Partner Travel Services SARL'),
  ISSUER_ADDRESS: z.string().min(1).default('12 boulevard d’Anfa, 20000 Casablanca, Maroc'),
  ISSUER_ICE: z.string().min(1).default('001234567000089'),
  ISSUER_IF: z.string().min(1).default('12345678'),
  ISSUER_RC: z.string().min(1).default('Casablanca 123456'),
  ISSUER_BANK: z.string().min(1).default('Banque Exemple du Maroc, agence Casablanca Anfa'),
  ISSUER_RIB: z.string().min(1).default('011 780 0000123456789012 34'),
  /** Days between the issue date and the due date. */
  SETTLEMENT_PAYMENT_TERM_DAYS: z.coerce.number().int().min(0).max(120).default(15),
  /** Documents larger than this are answered with a 303 to a presigned S3 URL (Lambda answers are capped at 6 MB, base64 adds a third). */
  SETTLEMENT_INLINE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  /** Lifetime of those presigned URLs. */
  SETTLEMENT_LINK_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /** Settlements with more lines than this print a summary on the invoice and every line in an annex. */
  SETTLEMENT_INVOICE_MAX_ROWS: z.coerce.number().int().min(1).default(200),
  /**
   * How long after a close begins a writer that read the period open may still commit its line: above the
   * timeout of the functions that write lines (bookings, cancellations, completions: 10 s). Only an early close
   * (the running month) waits it; the monthly job runs hours after its months ended.
   */
  SETTLEMENT_CLOSE_GRACE_MS: z.coerce.number().int().min(0).default(12_000),
  /** The same for a sandbox tenant's early close (the test helper): its writers are the tester's own requests. */
  SETTLEMENT_SANDBOX_CLOSE_GRACE_MS: z.coerce.number().int().min(0).default(1_000),
  SETTLEMENT_BUCKET: z.string().optional(),
  SETTLEMENT_QUEUE_URL: z.string().optional(),
});

export const settlementSettings = () => loadConfig(settlementConfig);

export function issuerIdentity(): IssuerIdentity {
  const c = settlementSettings();
  return { name: c.ISSUER_NAME, address: c.ISSUER_ADDRESS, ice: c.ISSUER_ICE, if: c.ISSUER_IF, rc: c.ISSUER_RC, bank: c.ISSUER_BANK, rib: c.ISSUER_RIB };
}
