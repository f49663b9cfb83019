import * as z from 'zod';
import { loadConfig } from '../kernel/config';
import type { IssuerIdentity } from './model';

/**
 * The issuer's legal identity, printed on every invoice. No defaults: the CDK stack sets it on the functions that
 * issue settlements (from the operator's issuer file, infra/issuer.ts), the local runtime sets the example one
 * (docs/operations/deploying.md, "The issuer's legal identity"). The issuer file is validated with this schema too.
 */
export const issuerFields = {
  ISSUER_NAME: z.string().trim().min(1),
  ISSUER_ADDRESS: z.string().trim().min(1),
  /** Identifiant commun de l'entreprise: 15 digits. */
  ISSUER_ICE: z.string().regex(/^\d{15}$/, 'an ICE is 15 digits'),
  /** Identifiant fiscal. */
  ISSUER_IF: z.string().regex(/^\d{1,10}$/, 'an IF is up to 10 digits'),
  /** Registre du commerce: the court's city and the number. */
  ISSUER_RC: z.string().trim().min(1),
  ISSUER_BANK: z.string().trim().min(1),
  /** Relevé d'identité bancaire: 24 digits, spaces allowed. */
  ISSUER_RIB: z.string().refine((v) => /^[\d ]+$/.test(v) && v.replace(/ /g, '').length === 24, 'a RIB is 24 digits'),
};
export const issuerSchema = z.object(issuerFields);
export type IssuerSettings = z.infer<typeof issuerSchema>;

/**
 * Settlement settings, from the environment (the CDK stack and the local
 * runtime set them).
 */
const settlementConfig = z.object({
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

/** Read only where invoices are issued: the other settlement functions (documents, queue) have no issuer. */
export const issuerConfig = z.object({
  ...issuerFields,
  /** The identity is the example one: every invoice is marked SPECIMEN (a stack synthesized without an issuer file). */
  ISSUER_SPECIMEN: z.enum(['true', 'false']).default('false'),
});

/** The identity frozen on a settlement when it is issued; `specimen` marks its documents as not valid invoices. */
export function issuerIdentity(env: NodeJS.ProcessEnv = process.env): IssuerIdentity {
  const c = loadConfig(issuerConfig, env);
  return {
    name: c.ISSUER_NAME,
    address: c.ISSUER_ADDRESS,
    ice: c.ISSUER_ICE,
    if: c.ISSUER_IF,
    rc: c.ISSUER_RC,
    bank: c.ISSUER_BANK,
    rib: c.ISSUER_RIB,
    ...(c.ISSUER_SPECIMEN === 'true' ? { specimen: true } : {}),
  };
}
