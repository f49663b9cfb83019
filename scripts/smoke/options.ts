import { parseArgs } from 'node:util';
import * as z from 'zod';

export class UsageError extends Error {}

export const USAGE = `Usage: npm run smoke -- --base-url URL [--receiver-url HTTPS_URL] [--receiver-port N] [--require-webhook] [--payment-jwk FILE]

Keys, from the environment (out of shell history and ps): PTBS_SANDBOX_KEY (sk_test_..., a PARTNER_ADMIN's,
required) and PTBS_LIVE_KEY (sk_live_..., optional: the live part); or --sandbox-key and --live-key.
PTBS_BASE_URL may stand for --base-url (the stack's ApiUrl, with or without /v1).
With neither a base URL nor a sandbox key: the local stack of npm start (same PORT and LOCAL_STATE_DIR)
and its demo partner's keys.
See docs/operations/deploying.md, "Smoke test".`;

/** The receiver's port when a tunnel forwards to it: the tunnel needs it before the run starts. */
export const DEFAULT_TUNNEL_PORT = 8787;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const httpUrl = (what: string) =>
  z
    .string()
    .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), `${what} must be an http(s) URL`)
    .transform((v) => new URL(v));

const Options = z.object({
  baseUrl: httpUrl('--base-url').transform((u) => {
    // The stack's ApiUrl output ends with /v1; a bare host is taken to mean the same.
    const path = u.pathname.replace(/\/+$/, '');
    return `${u.origin}${path.endsWith('/v1') ? path : `${path}/v1`}`;
  }),
  sandboxKey: z.string().regex(/^sk_test_\S+$/, 'the sandbox key is an sk_test_ key (the journey books: a live key would book for real)'),
  liveKey: z
    .string()
    .regex(/^sk_live_\S+$/, 'the live key is an sk_live_ key')
    .optional(),
  receiverUrl: httpUrl('--receiver-url')
    .refine((u) => u.protocol === 'https:', '--receiver-url must be an https URL: the service delivers only to public HTTPS addresses')
    .transform((u) => u.href)
    .optional(),
  receiverPort: z.coerce.number().int().min(0).max(65_535).optional(),
  requireWebhook: z.boolean(),
  paymentJwk: z.string().min(1).optional(),
});

export interface SmokeOptions extends z.infer<typeof Options> {
  /** The base URL is on this machine (the local stack): its webhook receiver can be reached directly. */
  local: boolean;
}

/** What the command line and the environment give; base URL and sandbox key may both be absent (the local stack's demo). */
export function readArgs(argv: string[], env: NodeJS.ProcessEnv) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        'base-url': { type: 'string' },
        'sandbox-key': { type: 'string' },
        'live-key': { type: 'string' },
        'receiver-url': { type: 'string' },
        'receiver-port': { type: 'string' },
        'require-webhook': { type: 'boolean' },
        'payment-jwk': { type: 'string' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return {
    help: values.help === true,
    baseUrl: (values['base-url'] as string | undefined) ?? env.PTBS_BASE_URL,
    sandboxKey: (values['sandbox-key'] as string | undefined) ?? env.PTBS_SANDBOX_KEY,
    liveKey: (values['live-key'] as string | undefined) ?? env.PTBS_LIVE_KEY,
    receiverUrl: values['receiver-url'] as string | undefined,
    receiverPort: values['receiver-port'] as string | undefined,
    requireWebhook: values['require-webhook'] === true,
    paymentJwk: (values['payment-jwk'] as string | undefined) ?? env.PTBS_PAYMENT_JWK,
  };
}

export function validate(args: Omit<ReturnType<typeof readArgs>, 'help'>): SmokeOptions {
  if (!args.baseUrl) throw new UsageError('--base-url (or PTBS_BASE_URL) is required with a sandbox key');
  if (!args.sandboxKey) throw new UsageError('a sandbox key is required: PTBS_SANDBOX_KEY (or --sandbox-key)');
  const parsed = Options.safeParse({ ...args, liveKey: args.liveKey || undefined });
  // Never echo what was given: it may be a key.
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => i.message).join('; '));
  return { ...parsed.data, local: LOOPBACK.has(new URL(parsed.data.baseUrl).hostname) };
}

export type WebhookPlan = { kind: 'receive'; url?: string; port: number } | { kind: 'skip' | 'fail'; reason: string };

/**
 * How the webhook step can run. A deployment in AWS cannot reach this machine, and refuses
 * loopback and private URLs anyway (SSRF guard): it needs a public HTTPS URL forwarding to the
 * receiver (a tunnel). Without one the step is skipped, and fails only when asked to.
 */
export function webhookPlan(o: Pick<SmokeOptions, 'local' | 'receiverUrl' | 'receiverPort' | 'requireWebhook'>): WebhookPlan {
  if (o.receiverUrl) return { kind: 'receive', url: o.receiverUrl, port: o.receiverPort ?? DEFAULT_TUNNEL_PORT };
  // Locally the stack delivers to http://127.0.0.1:PORT itself (ALLOW_LOCAL_WEBHOOKS).
  if (o.local) return { kind: 'receive', port: o.receiverPort ?? 0 };
  const reason = `the deployment cannot reach this machine: give --receiver-url https://... (a tunnel to 127.0.0.1:${o.receiverPort ?? DEFAULT_TUNNEL_PORT})`;
  return { kind: o.requireWebhook ? 'fail' : 'skip', reason };
}
