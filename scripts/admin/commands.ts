import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { ROLES } from '../../shared/access/roles';
import { singleLine } from '../../shared/http/bounds';
import { JOBS } from '../../shared/queues';
import { KeyName } from '../../shared/team/schemas';
import { UsageError } from './target';

export interface Command {
  usage: string;
  description: string;
  /** What stdout carries with --json (the admin CLI reference shows it). */
  output: string;
  /** Each flag's schema carries its description (.describe()): the reference is generated from them. */
  flags: z.ZodObject;
  /** Names of positional arguments, parsed into the flags object. */
  positionals?: string[];
  /** Needs no running stack (reads local files only). */
  offline?: boolean;
  run(flags: Record<string, unknown>): Promise<{ json: unknown; text: string }>;
}

const env = z.enum(['live', 'test']).describe('The environment: live, or test (the sandbox).');
const jobId = z.enum(JOBS.map((j) => j.id) as [string, ...string[]]);
const role = z.enum(ROLES);
const partnerId = z.uuid().describe("The partner's id (partner:list).");
const memberId = z.uuid().describe("The member's id (member:list).");
const repo = async () => (await import('../../shared/access/store')).accessStore;

function partnerEnabled(enabled: boolean): Command {
  const verb = enabled ? 'enable' : 'disable';
  return {
    usage: `partner:${verb} --partner ID`,
    description: enabled
      ? 'Enable a disabled partner again: its keys work again (revoked or expired ones stay so).'
      : 'Disable a partner: every key of every member fails authentication at once (401), in both environments; data and keys are kept.',
    output: '`{partner_id, enabled, disabled_at}`.',
    flags: z.object({ partner: partnerId }),
    async run(f) {
      const p = await (await repo()).setPartnerEnabled(f.partner as string, enabled);
      return {
        json: { partner_id: p.partner_id, enabled: !p.disabled_at, disabled_at: p.disabled_at ?? null },
        text: `Partner ${p.partner_id} ${verb}d.`,
      };
    },
  };
}

function memberEnabled(enabled: boolean): Command {
  const verb = enabled ? 'enable' : 'disable';
  return {
    usage: `member:${verb} --partner ID --member MEMBER_ID`,
    description: enabled
      ? 'Enable a disabled member again: its keys work again and its console user can sign in.'
      : "Disable a member: their keys and console sessions stop working at once, and their console user can't sign in (the last enabled PARTNER_ADMIN can't be disabled).",
    output: '`{member_id, enabled, status}`.',
    flags: z.object({ partner: partnerId, member: memberId }),
    async run(f) {
      const { setConsoleMemberEnabled } = await import('../../shared/team/console-users');
      const m = await setConsoleMemberEnabled(f.partner as string, f.member as string, enabled);
      return { json: { member_id: m.member_id, enabled: m.enabled, status: m.status }, text: `Member ${m.member_id} ${verb}d.` };
    },
  };
}

/** Every operator command. Each returns one JSON document and a human summary. */
export const COMMANDS: Record<string, Command> = {
  'partner:create': {
    usage: 'partner:create --name NAME [--email EMAIL]',
    description: 'Create a partner, its first PARTNER_ADMIN member, and one live and one sandbox key for that member.',
    output:
      '`{partner_id, member_id, live_key, test_key, live_key_id, test_key_id}`: the partner, its first PARTNER_ADMIN, one key per environment (the secrets are shown once).',
    flags: z.object({
      // Shown to the partner's staff (console, e-mails) and printed on invoices: one line, no bidirectional control.
      name: singleLine(z.string().min(1).max(200)).describe(
        "The partner's name (also its invoices' legal name until partner:set-legal): one line of 200 characters at most, without control or bidirectional characters.",
      ),
      email: z
        .email()
        .optional()
        .describe("The first PARTNER_ADMIN's e-mail, which gets the console invitation (without it: a placeholder address, no e-mail)."),
    }),
    async run(f) {
      const { catalogStore } = await import('../../shared/catalog/store');
      const sandboxCatalog = await catalogStore.currentSandboxScope();
      const { createPartnerWithConsole } = await import('../../shared/team/console-users');
      const r = await createPartnerWithConsole({ name: f.name as string, email: f.email as string | undefined, sandboxCatalog });
      return {
        json: {
          partner_id: r.partner.partner_id,
          member_id: r.member.member_id,
          live_key: r.liveKey.key,
          test_key: r.testKey.key,
          live_key_id: r.liveKey.key_id,
          test_key_id: r.testKey.key_id,
        },
        text: [
          `Partner ${r.partner.name} created: ${r.partner.partner_id}`,
          `Admin member: ${r.member.member_id} (${r.member.email})`,
          `Live key:    ${r.liveKey.key}`,
          `Sandbox key: ${r.testKey.key}`,
          'The secrets are shown once: store them now.',
        ].join('\n'),
      };
    },
  },
  'partner:list': {
    usage: 'partner:list',
    description: 'List partners.',
    output: '`{data: [partner]}`.',
    flags: z.object({}),
    async run() {
      const data = await (await repo()).listPartners();
      return {
        json: { data },
        text: data.length ? data.map((p) => `${p.partner_id}  ${p.name}  (created ${p.created_at})`).join('\n') : 'No partners.',
      };
    },
  },
  'demo:keys': {
    usage: 'demo:keys [--shell]',
    description:
      "The local stack's demo partner (created by npm start): its id, its PARTNER_ADMIN member, its sandbox and live keys, the stack's base URL, and the demo admin's console e-mail and password. --shell prints them as shell variables: eval \"$(npm run -s admin -- demo:keys --shell)\" sets B, K, LIVE_KEY, P and M.",
    output: '`{partner_id, member_id, test_key, live_key, base_url, console_url, console_email, console_password}`.',
    flags: z.object({ shell: z.boolean().optional().describe('Print B, K, LIVE_KEY, P and M as shell variables, for eval.') }),
    offline: true,
    async run(f) {
      if (process.env.ADMIN_TARGET === 'aws')
        throw new UsageError('demo:keys reads the local stack; a deployed stack has no demo partner (partner:create makes one)');
      const { demoPartnerOf, findRunningStack } = await import('../../infra/local/find-stack');
      const runtime = findRunningStack();
      const demo = demoPartnerOf(runtime);
      return {
        json: {
          partner_id: demo.partner_id,
          member_id: demo.member_id,
          test_key: demo.test_key,
          live_key: demo.live_key,
          base_url: runtime.baseUrl,
          console_url: runtime.consoleUrl,
          console_email: demo.console_email ?? null,
          console_password: demo.console_password ?? null,
        },
        text: f.shell
          ? `B=${runtime.baseUrl}\nK=${demo.test_key}\nLIVE_KEY=${demo.live_key}\nP=${demo.partner_id}\nM=${demo.member_id}`
          : [
              `Demo Bank, partner ${demo.partner_id}, on ${runtime.baseUrl}`,
              `  Sandbox key  ${demo.test_key}`,
              `  Live key     ${demo.live_key}   (live writes are signed: docs/guides/authentication.md)`,
              `  Console      ${runtime.consoleUrl}   ${demo.console_email ?? '(no console user yet: restart npm start)'} / ${demo.console_password ?? ''}`,
            ].join('\n'),
      };
    },
  },
  'partner:set-rate-limit': {
    usage: 'partner:set-rate-limit --partner ID (--per-minute N | --default)',
    description: 'Set the per-key request rate of a partner (requests per minute), or go back to the default of 600.',
    output: '`{partner_id, rate_limit_per_minute}`.',
    flags: z.object({
      partner: partnerId,
      'per-minute': z.coerce.number().int().min(1).max(100_000).optional().describe('Requests per minute per key (1 to 100 000).'),
      default: z.boolean().optional().describe('Go back to the default of 600 per minute.'),
    }),
    async run(f) {
      if ((f['per-minute'] === undefined) === (f.default !== true)) throw new UsageError('give exactly one of --per-minute N or --default');
      const p = await (await repo()).setRateLimit(f.partner as string, f.default ? null : (f['per-minute'] as number));
      return {
        json: { partner_id: p.partner_id, rate_limit_per_minute: p.rate_limit_per_minute ?? 600 },
        text: `Partner ${p.partner_id}: ${p.rate_limit_per_minute ?? 600} requests per minute per key.`,
      };
    },
  },
  'partner:set-legal': {
    usage: 'partner:set-legal --partner ID [--legal-name NAME] [--address ADDRESS] [--ice ICE]',
    description: "Set the partner's legal identity printed on its invoices (an empty value removes it; the legal name defaults to the partner's name).",
    output: '`{partner_id, legal_name, legal_address, legal_ice}`.',
    flags: z.object({
      partner: partnerId,
      'legal-name': singleLine(z.string().max(200))
        .optional()
        .describe('The legal name on its invoices: one line of 200 characters at most, without control or bidirectional characters.'),
      address: z.string().max(500).optional().describe('The legal address (500 characters at most).'),
      ice: z.string().max(30).optional().describe("The partner's ICE (Morocco's company identifier)."),
    }),
    async run(f) {
      const v = (k: string) => (f[k] === undefined ? undefined : (f[k] as string).trim() || null);
      if (f['legal-name'] === undefined && f.address === undefined && f.ice === undefined)
        throw new UsageError('give at least one of --legal-name, --address, --ice');
      const p = await (await repo()).setLegalIdentity(f.partner as string, { legal_name: v('legal-name'), legal_address: v('address'), legal_ice: v('ice') });
      const json = { partner_id: p.partner_id, legal_name: p.legal_name ?? p.name, legal_address: p.legal_address ?? null, legal_ice: p.legal_ice ?? null };
      return {
        json,
        text: `Partner ${p.partner_id}: ${json.legal_name}${json.legal_address ? `, ${json.legal_address}` : ''}${json.legal_ice ? `, ICE ${json.legal_ice}` : ''}.`,
      };
    },
  },
  'member:add': {
    usage: 'member:add --partner ID --email EMAIL --role ROLE [--first-name F] [--last-name L]',
    description: `Add a console member; the console (Cognito) e-mails them a temporary password. Roles: ${ROLES.join(', ')}.`,
    output: '`{member_id, partner_id, email, role}`.',
    flags: z.object({
      partner: partnerId,
      email: z.email().describe("The e-mail the invitation goes to (unique among the partner's members)."),
      role: role.describe("The member's role."),
      'first-name': z.string().optional().describe('First name.'),
      'last-name': z.string().optional().describe('Last name.'),
    }),
    async run(f) {
      const { addConsoleMember } = await import('../../shared/team/console-users');
      const m = await addConsoleMember(f.partner as string, {
        email: f.email as string,
        role: f.role as (typeof ROLES)[number],
        first_name: f['first-name'] as string | undefined,
        last_name: f['last-name'] as string | undefined,
      });
      return {
        json: { member_id: m.member_id, partner_id: m.partner_id, email: m.email, role: m.role },
        text: `Member ${m.member_id} (${m.email}, ${m.role}) added.`,
      };
    },
  },
  'member:set-password': {
    usage: 'member:set-password --partner ID --member MEMBER_ID --password PASSWORD [--temporary]',
    description:
      "Set a member's console password (Cognito AdminSetUserPassword): permanent, or with --temporary one they must change at the next sign-in. For support and tests; the member still enrols or uses their authenticator.",
    output: '`{member_id, email, permanent}`.',
    flags: z.object({
      partner: partnerId,
      member: memberId,
      password: z.string().min(1).describe('The new password (12+ characters with upper and lower case, a digit and a symbol).'),
      temporary: z.boolean().optional().describe('The member must change it at the next sign-in.'),
    }),
    async run(f) {
      const member = await (await repo()).getMember(f.partner as string, f.member as string);
      if (!member) throw new UsageError(`member ${f.member} does not exist in partner ${f.partner}`);
      if (!member.identity_id) throw new UsageError(`member ${f.member} has no console user yet: run members:link-console --partner ${f.partner} first`);
      const { directory } = await import('../../shared/identity/directory');
      try {
        await directory.setPassword(member.identity_id, f.password as string, !f.temporary);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      return {
        json: { member_id: member.member_id, email: member.email, permanent: !f.temporary },
        text: `Console password of ${member.email} set${f.temporary ? ' (temporary: to be changed at the next sign-in)' : ''}.`,
      };
    },
  },
  'members:link-console': {
    usage: 'members:link-console [--partner ID]',
    description:
      'Give every member made before the console (no console user yet) a Cognito user linked to its unchanged member id; no e-mail is sent. Idempotent: linked members are skipped.',
    output: '`{linked: [{partner_id, member_id, email}]}`.',
    flags: z.object({ partner: partnerId.optional().describe('Only this partner (default: every partner).') }),
    async run(f) {
      const store = await repo();
      const { linkConsoleUser } = await import('../../shared/team/console-users');
      const partners = f.partner ? [f.partner as string] : (await store.listPartners()).map((p) => p.partner_id);
      const linked: { partner_id: string; member_id: string; email: string }[] = [];
      for (const partnerId of partners) {
        for (const m of await store.listMembers(partnerId)) {
          if (m.identity_id) continue;
          await linkConsoleUser(m);
          linked.push({ partner_id: partnerId, member_id: m.member_id, email: m.email });
          progress(`linked ${m.email} (${m.member_id})`);
        }
      }
      return { json: { linked }, text: `${linked.length} member(s) linked to new console users.` };
    },
  },
  'member:list': {
    usage: 'member:list --partner ID',
    description: 'List the console members of a partner.',
    output: '`{data: [member]}`.',
    flags: z.object({ partner: partnerId }),
    async run(f) {
      const data = await (await repo()).listMembers(f.partner as string);
      return { json: { data }, text: data.map((m) => `${m.member_id}  ${m.email}  ${m.role}${m.enabled ? '' : '  (disabled)'}`).join('\n') || 'No members.' };
    },
  },
  'partner:disable': partnerEnabled(false),
  'partner:enable': partnerEnabled(true),
  'member:disable': memberEnabled(false),
  'member:enable': memberEnabled(true),
  'member:remove': {
    usage: 'member:remove --partner ID --member MEMBER_ID',
    description:
      "Remove a member: its keys are revoked in both environments, its console user is deleted, and its sessions fail at once (the last enabled PARTNER_ADMIN can't be removed). Its e-mail can be invited again.",
    output: '`{member_id, email, removed: true}`.',
    flags: z.object({ partner: partnerId, member: memberId }),
    async run(f) {
      const { removeConsoleMember } = await import('../../shared/team/console-users');
      const m = await removeConsoleMember(f.partner as string, f.member as string);
      return { json: { member_id: m.member_id, email: m.email, removed: true }, text: `Member ${m.member_id} (${m.email}) removed.` };
    },
  },
  'catalog:import': {
    usage: 'catalog:import FILE',
    description:
      'Import the production catalog from a JSON file (format: shared/catalog/import-format.ts); adventures missing from it are withdrawn. Running functions pick up the new catalog within 5 s (PROD_RECHECK_MS).',
    output: '`{adventures, withdrawn, index_version, sandbox_snapshot}`; progress on stderr.',
    flags: z.object({ file: z.string().min(1).describe('The catalog JSON file.') }),
    positionals: ['file'],
    async run(f) {
      const { importCatalog } = await import('../../shared/catalog/operations');
      const r = await importCatalog(readJsonFile(f.file as string), progress);
      return { json: r, text: `Imported ${r.adventures} adventures (index version ${r.index_version}); withdrawn: ${r.withdrawn.join(', ') || 'none'}.` };
    },
  },
  'catalog:refresh-sandbox': {
    usage: 'catalog:refresh-sandbox',
    description:
      "Refresh every tenant's sandbox catalog from production now (the weekly job does it Sundays 03:00 UTC). A tenant subscribed to adventure.unavailable gets one per adventure its sandbox loses, on its sandbox clock: dated at the clock's time, naming its quotes still open as of the clock.",
    output: '`{snapshot, tenants, events}`; one progress line per tenant on stderr.',
    flags: z.object({}),
    async run() {
      const { refreshSandboxes } = await import('../../shared/catalog/operations');
      const r = await refreshSandboxes(progress);
      return { json: r, text: `Sandbox snapshot ${r.snapshot}: ${r.tenants} tenants refreshed, ${r.events} adventure.unavailable events.` };
    },
  },
  'catalog:withdraw': {
    usage: 'catalog:withdraw --slug SLUG',
    description:
      'Withdraw a production adventure from sale (stays listed, not bookable); every partner subscribed to adventure.unavailable gets it, naming its own open quotes. Running it again records only the events still missing (`events: 0` when none).',
    output: '`{slug, active: false, events}`.',
    flags: z.object({ slug: z.string().min(1).describe("The adventure's slug.") }),
    async run(f) {
      const { withdrawAdventure } = await import('../../shared/catalog/operations');
      const r = await withdrawAdventure(f.slug as string);
      return { json: r, text: `${r.slug} withdrawn; ${r.events} partner(s) notified.` };
    },
  },
  'catalog:close-slot': {
    usage: 'catalog:close-slot --rate-pack ID --date YYYY-MM-DD [--time HH:MM]',
    description:
      'Close one production departure (or FLEXIBLE day, without --time) to sale; every partner subscribed to adventure.unavailable gets it, naming its own open quotes. Running it again records only the events still missing (`events: 0` when none).',
    output: '`{rate_pack_id, date, start_time, closed: true, events}`.',
    flags: z.object({
      'rate-pack': z.uuid().describe('The rate pack id.'),
      date: z.iso.date().describe('The departure date (YYYY-MM-DD).'),
      time: z
        .string()
        .regex(/^\d{2}:\d{2}$/)
        .optional()
        .describe('The departure time (HH:MM); without it, the FLEXIBLE day.'),
    }),
    async run(f) {
      const { closeSlot } = await import('../../shared/catalog/operations');
      const r = await closeSlot(f['rate-pack'] as string, f.date as string, (f.time as string | undefined) ?? null);
      return { json: r, text: `Closed ${r.date} ${r.start_time ?? '(day)'} of ${r.rate_pack_id}; ${r.events} partner(s) notified.` };
    },
  },
  'payment-key:register': {
    usage: 'payment-key:register --partner ID --env live|test --jwk FILE',
    description:
      "Register a bank's public EC P-256 JWK that verifies its payment confirmations (ES256); kid from the JWK or its thumbprint. The same key again changes nothing; another key under a kid already taken is refused.",
    output: '`{partner_id, env, kid, created}`: `created` is false when that key was already registered under that kid.',
    flags: z.object({ partner: partnerId, env, jwk: z.string().min(1).describe('A file holding the public EC P-256 JWK.') }),
    async run(f) {
      const { registerPaymentKey } = await import('../../shared/bookings/payment-keys');
      const r = await registerPaymentKey(f.partner as string, f.env as 'live' | 'test', readJsonFile(f.jwk as string) as import('jose').JWK);
      return {
        json: { partner_id: f.partner, env: f.env, kid: r.kid, created: r.created },
        text: `Payment key ${r.kid} ${r.created ? 'registered' : 'was already registered'} for ${f.env as string}.`,
      };
    },
  },
  'payment-key:generate': {
    usage: 'payment-key:generate --partner ID --env test|live',
    description:
      'Create a key pair, register the public key, print the private JWK once (to sign payment confirmations). Sandbox keys anywhere; live keys only on the local stack: in AWS banks keep their production private keys (payment-key:register).',
    output: '`{partner_id, env, kid, private_jwk}`: the private key is shown once.',
    flags: z.object({ partner: partnerId, env }),
    async run(f) {
      if (f.env === 'live' && process.env.ADMIN_TARGET === 'aws') {
        throw new UsageError(
          'live payment keys are not generated for a deployed stack: the bank keeps its private key and registers the public half (payment-key:register)',
        );
      }
      const { generatePaymentKey } = await import('../../shared/bookings/payment-keys');
      const r = await generatePaymentKey(f.partner as string, f.env as 'live' | 'test');
      return {
        json: { partner_id: f.partner, env: f.env, kid: r.kid, private_jwk: r.private_jwk },
        text: `kid ${r.kid}\nprivate JWK (shown once): ${JSON.stringify(r.private_jwk)}`,
      };
    },
  },
  'booking:cancel': {
    usage: 'booking:cancel --booking BOOKING_NUMBER [--reason TEXT]',
    description:
      "Cancel a booking on behalf of the service (full refund); the partner gets booking.cancelled, and the traveler's e-mail goes on the mail queue for the service to send.",
    output: '`{booking_number, status, cancellation}`.',
    flags: z.object({
      booking: z.string().min(1).describe('The booking number (PTB-XXXX-XXXX).'),
      reason: z.string().max(500).optional().describe('The reason given to the partner (500 characters at most).'),
    }),
    async run(f) {
      const { cancelByService } = await import('../../shared/bookings/cancel');
      const b = await cancelByService(f.booking as string, (f.reason as string | undefined) ?? null);
      return {
        json: { booking_number: b.booking_number, status: b.status, cancellation: b.cancellation },
        text: `${b.booking_number} cancelled; refund ${b.cancellation!.refund_amount.amount} MAD.`,
      };
    },
  },
  'booking:complete': {
    usage: 'booking:complete [--date YYYY-MM-DD]',
    description:
      'Run the daily completion job: CONFIRMED bookings travelling on DATE (a past date; default yesterday, Morocco time) or in the 7 days before become COMPLETED.',
    output: '`{through_date, completed}`.',
    flags: z.object({ date: z.iso.date().optional().describe('The travel date to complete (a past date; default yesterday, Morocco time).') }),
    async run(f) {
      const { completeBookings, yesterdayInMorocco } = await import('../../shared/bookings/complete');
      const r = await completeBookings((f.date as string | undefined) ?? yesterdayInMorocco(), progress);
      return { json: r, text: `${r.completed} booking(s) completed through ${r.through_date}.` };
    },
  },
  'review:moderate': {
    usage: 'review:moderate --review REVIEW_ID --action HIDDEN|RESTORED|DELETED',
    description:
      'Moderate a review: HIDDEN (no longer public), RESTORED (a hidden one is public again), DELETED (permanently removed). ' +
      'A review tied to a partner booking sends review.moderated to that partner; consumer-site reviews send nothing.',
    output: '`{review_id, status, moderated_at, event_id}`: `event_id` of the `review.moderated` sent to the partner, null for a consumer-site review.',
    flags: z.object({
      review: z.uuid().describe('The review id.'),
      action: z.enum(['HIDDEN', 'RESTORED', 'DELETED']).describe('What to do with it.'),
    }),
    async run(f) {
      const { moderateReview } = await import('../../shared/reviews/moderate');
      const r = await moderateReview(f.review as string, f.action as 'HIDDEN' | 'RESTORED' | 'DELETED');
      return {
        json: { review_id: r.review.id, status: r.review.status, moderated_at: r.review.moderated_at, event_id: r.event_id },
        text: `Review ${r.review.id} is ${r.review.status}${r.event_id ? ` (review.moderated ${r.event_id})` : ' (consumer review: no event)'}.`,
      };
    },
  },
  'review:reply': {
    usage: 'review:reply --review REVIEW_ID --text TEXT',
    description: "Set (or replace) the agency's public reply to a review (agency_reply, agency_replied_at).",
    output: '`{review_id, agency_reply, agency_replied_at}`.',
    flags: z.object({
      review: z.uuid().describe('The review id.'),
      text: z.string().trim().min(1).max(2000).describe('The reply (2 000 characters at most).'),
    }),
    async run(f) {
      const { replyToReview } = await import('../../shared/reviews/moderate');
      const r = await replyToReview(f.review as string, f.text as string);
      return { json: { review_id: r.id, agency_reply: r.agency_reply, agency_replied_at: r.agency_replied_at }, text: `Reply set on review ${r.id}.` };
    },
  },
  'files:sweep': {
    usage: 'files:sweep',
    description: 'Run the hourly sweep now: delete expired uploads never attached to a review (records and objects).',
    output: '`{deleted}`.',
    flags: z.object({}),
    async run() {
      const { sweepFiles } = await import('../../shared/files/sweep');
      const r = await sweepFiles();
      return { json: r, text: `${r.deleted} expired file(s) deleted.` };
    },
  },
  'settlement:run': {
    usage: 'settlement:run [--date YYYY-MM-DD] [--partner ID] [--env live|test] [--early] [--queue]',
    description:
      "Run the monthly settlement job as on DATE (default today, Morocco time): every open settlement of a month before DATE's month is issued " +
      '(number, PDF, CSV, settlement.issued); one progress line per partner and environment. A month that has not ended is closed only with --early. ' +
      'With --queue, one message per tenant goes to the settlement queue, as the cron does; with ADMIN_TARGET=aws only --queue is taken, so that ' +
      "invoices are always issued by the deployed worker with the stack's issuer identity.",
    output:
      '`{through_period, issued, completed, failed, tenants: [{partner_id, env, issued, settlements, error}]}`; with `--queue`, `{through_period, enqueued}`. `issued` counts the numbers this run took, `completed` the settlements whose documents and `settlement.issued` it stored.',
    flags: z.object({
      date: z.iso.date().optional().describe('Run as on this date (default today, Morocco time): the months before its month are issued.'),
      partner: partnerId.optional().describe('Only this partner (default: every partner).'),
      env: env.optional().describe('Only this environment (default: both).'),
      early: z.boolean().optional().describe('Close a month that has not ended yet (for tests).'),
      queue: z.boolean().optional().describe('Put one message per tenant on the settlement queue, as the cron does, instead of running here.'),
    }),
    async run(f) {
      const { localDate } = await import('../../shared/kernel/time');
      const { periodOf } = await import('../../shared/settlements/period');
      const { runCounts, runSettlements } = await import('../../shared/settlements/run');
      const { enqueueSettlements, throughPeriodFor } = await import('../../shared/settlements/schedule');
      const { settlementView } = await import('../../shared/settlements/views');
      const date = (f.date as string | undefined) ?? localDate(new Date());
      const through = throughPeriodFor(date);
      if (through >= periodOf(new Date()) && !f.early) {
        throw new UsageError(`--date ${date} would close ${through}, which has not ended (Morocco time): add --early to close it now`);
      }
      const o = { date, partnerId: f.partner as string | undefined, env: f.env as 'live' | 'test' | undefined };
      if (f.queue) {
        const r = await enqueueSettlements(o);
        return {
          json: { through_period: r.through_period, enqueued: r.enqueued.length },
          text: `${r.enqueued.length} tenant message(s) enqueued through ${r.through_period}.`,
        };
      }
      // In AWS the deployed worker issues, with the stack's issuer identity: never the operator's shell's.
      if (process.env.ADMIN_TARGET === 'aws') {
        throw new UsageError(
          'with ADMIN_TARGET=aws, settlements are issued by the deployed settlement worker with the issuer identity of the stack: add --queue',
        );
      }
      // Issued in this process (the local stack): it needs the issuer's identity, checked before any tenant is closed.
      const { issuerIdentity } = await import('../../shared/settlements/config');
      issuerIdentity();
      const r = await runSettlements({ ...o, progress });
      const json = {
        through_period: r.through_period,
        // Numbers taken by this run, and settlements completed (documents, settlement.issued): a rerun after a
        // stopped run completes what that run numbered without issuing it again.
        ...runCounts(r.tenants),
        tenants: r.tenants.map((t) => ({
          partner_id: t.partner_id,
          env: t.env,
          issued: t.issued,
          settlements: t.settlements.map(settlementView),
          error: t.error ?? null,
        })),
      };
      return {
        json,
        text: `Through ${r.through_period}: ${json.issued} settlement(s) issued, ${json.completed} completed, ${json.failed} tenant(s) failed.`,
      };
    },
  },
  'settlement:pay': {
    usage: 'settlement:pay --settlement ID --reference TRANSFER_REFERENCE --amount 1234.50',
    description: "Record the receipt of a partner's transfer: the settlement becomes PAID (settlement.paid). The amount must equal the total due.",
    output: 'the PAID settlement.',
    flags: z.object({
      settlement: z.uuid().describe('The settlement id.'),
      reference: z.string().min(1).max(64).describe("The transfer's reference (64 characters at most)."),
      amount: z
        .string()
        .regex(/^\d+(\.\d{1,2})?$/, 'an amount in MAD, e.g. 1234.50')
        .describe('The amount received in MAD; it must equal the total due.'),
    }),
    async run(f) {
      const { parseMad } = await import('../../shared/kernel/money');
      const { payByOperator } = await import('../../shared/settlements/pay');
      const { settlementView } = await import('../../shared/settlements/views');
      const s = settlementView(await payByOperator(f.settlement as string, f.reference as string, parseMad(f.amount as string)));
      return { json: s, text: `${s.number} PAID (${s.total_due.amount} MAD, transfer ${s.transfer_reference}).` };
    },
  },
  'settlement:list': {
    usage: 'settlement:list --partner ID [--env live|test]',
    description: 'The settlements of a partner in one environment (default live), newest period first.',
    output: '`{data: [settlement]}`.',
    flags: z.object({ partner: partnerId, env: env.default('live') }),
    async run(f) {
      const { settlementStore } = await import('../../shared/settlements/store');
      const { settlementView } = await import('../../shared/settlements/views');
      const data = (await settlementStore.allForTenant(f.partner as string, f.env as 'live' | 'test')).reverse().map(settlementView);
      return {
        json: { data },
        text:
          data.map((s) => `${s.id}  ${s.period_start.slice(0, 7)}  ${s.status.padEnd(6)}  ${s.number ?? '-'}  ${s.total_due.amount} MAD`).join('\n') ||
          'No settlements.',
      };
    },
  },
  'settlement:register': {
    usage: 'settlement:register [--env live|test --partner ID]',
    description: 'The register of a number series: every invoice number assigned, in order (live: the service series; test: one per partner).',
    output: '`{data: [{seq, number, settlement_id, partner_id, period, issued_at}]}`.',
    flags: z.object({ env: env.default('live'), partner: partnerId.optional().describe("The sandbox series' partner (with --env test).") }),
    async run(f) {
      if (f.env === 'test' && !f.partner) throw new UsageError('the sandbox series is per partner: give --partner');
      const { settlementStore } = await import('../../shared/settlements/store');
      const data = await settlementStore.register(f.env as 'live' | 'test', (f.partner as string | undefined) ?? '');
      return {
        json: { data },
        text: data.map((r) => `${r.number}  ${r.issued_at}  ${r.partner_id}  ${r.period}  ${r.settlement_id}`).join('\n') || 'No numbers yet.',
      };
    },
  },
  'mail:list': {
    usage: 'mail:list [--to EMAIL] [--limit N]',
    description: "The local stack's mailbox (e-mails the service sent), newest first.",
    output: '`{data: [mail]}`, newest first.',
    flags: z.object({
      to: z.string().optional().describe('Only the e-mails to this address.'),
      limit: z.coerce.number().int().min(1).max(500).default(20).describe('At most this many e-mails (1 to 500).'),
    }),
    async run(f) {
      const { readdirSync, readFileSync: read } = await import('node:fs');
      const { join } = await import('node:path');
      const dir = process.env.MAILBOX_DIR ?? join(process.env.LOCAL_STATE_DIR ?? '.local', 'mailbox');
      let files: string[] = [];
      try {
        files = readdirSync(dir)
          .filter((n) => n.endsWith('.json'))
          .sort()
          .reverse();
      } catch {
        files = [];
      }
      const data = files
        .map((n) => JSON.parse(read(join(dir, n), 'utf8')) as { to: string; subject: string; sent_at: string; text: string })
        .filter((m) => !f.to || m.to.toLowerCase() === (f.to as string).toLowerCase())
        .slice(0, f.limit as number);
      return { json: { data }, text: data.map((m) => `${m.sent_at}  ${m.to}  ${m.subject}`).join('\n') || 'The mailbox is empty.' };
    },
  },
  'webhooks:sweep': {
    usage: 'webhooks:sweep [--grace-seconds N]',
    description: 'Run the webhook sweeper now: re-drive events not fanned out and deliveries whose attempt is overdue by more than N seconds (default 120).',
    output: '`{events, deliveries}`.',
    flags: z.object({ 'grace-seconds': z.coerce.number().int().min(0).default(120).describe('Re-drive attempts overdue by more than this many seconds.') }),
    async run(f) {
      const { sweep } = await import('../../shared/webhooks/sweep');
      const r = await sweep(new Date(), (f['grace-seconds'] as number) * 1000);
      return { json: r, text: `Re-driven: ${r.events} event(s), ${r.deliveries} delivery(ies).` };
    },
  },
  'webhooks:reindex': {
    usage: 'webhooks:reindex',
    description:
      'Write the webhook subscription index (who gets adventure.unavailable) for every ACTIVE endpoint of every partner. Run once after deploying the version that introduced it; idempotent.',
    output: '`{partners, endpoints}`.',
    flags: z.object({}),
    async run() {
      const { reindexSubscriptions } = await import('../../shared/webhooks/endpoints');
      const partners = await (await repo()).listPartners();
      const r = await reindexSubscriptions(partners.map((p) => p.partner_id));
      return { json: r, text: `Indexed ${r.endpoints} active endpoint(s) of ${r.partners} partner(s).` };
    },
  },
  'data:list-rows': {
    usage: 'data:list-rows',
    description:
      'Give every booking, quote and API key written before their lists became rows its list row, and take it out of the index the lists were read from (GET /bookings, /quotes and /api-keys now read rows, strongly consistent, where an index lags its writes). Run once after deploying the version that introduced the rows (until then those lists miss what was written before); idempotent. The local stack runs it at every start.',
    output: '`{bookings, quotes, keys}`: how many were moved.',
    flags: z.object({}),
    async run() {
      const { moveListsToRows } = await import('../../shared/migrations/list-rows');
      const r = await moveListsToRows();
      return { json: r, text: `Moved to list rows: ${r.bookings} booking(s), ${r.quotes} quote(s), ${r.keys} key(s).` };
    },
  },
  'data:own-reviews': {
    usage: 'data:own-reviews',
    description:
      "Give every review a partner posted before GET /reviews?posted_by_you=true existed its row in the partner's own list (the filter reads those rows; without one, a review is missing from it). Run once after deploying the version that introduced the filter; idempotent (Queries only). The local stack runs it at every start.",
    output: '`{reviews}`: how many rows were added.',
    flags: z.object({}),
    async run() {
      const { addOwnReviewRows } = await import('../../shared/migrations/own-reviews');
      const r = await addOwnReviewRows();
      return { json: r, text: `Added the own-list rows of ${r.reviews} review(s).` };
    },
  },
  'webhooks:replay': {
    usage: 'webhooks:replay --delivery DELIVERY_ID',
    description:
      "Re-drive one webhook delivery of any partner (a dead letter, after its cause is fixed): the same event to the same endpoint as a new delivery, as the partner's POST /webhooks/deliveries/{id}/replay does, without spending the partner's budget of replays and test sends.",
    output: '`{delivery_id, replay_of, partner_id, environment, status}`.',
    flags: z.object({ delivery: z.uuid().describe('The delivery id (of a dead letter).') }),
    async run(f) {
      const { webhookStore } = await import('../../shared/webhooks/store');
      const { replay } = await import('../../shared/webhooks/replay');
      const { operatorTenantOnClock } = await import('../../shared/clock/store');
      const d = await webhookStore.getDelivery(f.delivery as string);
      if (!d) throw new UsageError(`no webhook delivery ${f.delivery as string}`);
      // An operator's replay spends nothing of the partner's budget of manual sends; a sandbox's is made at its clock's time.
      const r = await replay(await operatorTenantOnClock(d.partner_id, d.env), d.id, undefined, { budgeted: false });
      return {
        json: { delivery_id: r.id, replay_of: r.replay_of, partner_id: r.partner_id, environment: r.env, status: r.status },
        text: `Delivery ${d.id} replayed as ${r.id} (partner ${r.partner_id}, ${r.env}).`,
      };
    },
  },
  'job:run': {
    usage: 'job:run --job ID [--time ISO_DATE_TIME]',
    description: `Run a scheduled job now in the local stack, as its schedule would (scheduled time: --time, default now); recorded like a scheduled run. Jobs: ${JOBS.map((j) => j.id).join(', ')}.`,
    output: '`{job, scheduled_at, result}`; exit 1 if the job fails.',
    flags: z.object({ job: jobId.describe('The job id.'), time: z.iso.datetime().optional().describe('The scheduled time the run is for (default now).') }),
    async run(f) {
      if (process.env.ADMIN_TARGET === 'aws') {
        throw new UsageError(
          'job:run runs a job in the local stack; in AWS invoke its function: aws lambda invoke --function-name <the job function> (see docs/operations/recovery.md, "Running a job again")',
        );
      }
      const job = JOBS.find((j) => j.id === f.job)!;
      const { invoke, lambdaContext } = await import('../../infra/local/lambda');
      const { scheduledEvent } = await import('../../infra/local/cron');
      const time = new Date((f.time as string | undefined) ?? Date.now());
      const result = await invoke(job.handler, scheduledEvent(job, time), lambdaContext(job.id, 900_000));
      return { json: { job: job.id, scheduled_at: time.toISOString(), result }, text: `${job.id} done: ${JSON.stringify(result)}` };
    },
  },
  'jobs:status': {
    usage: 'jobs:status',
    description: 'Each scheduled job: schedule, last successful run, last failure, and whether it is overdue (what the job watchdog reports).',
    output: '`{data: [{job, schedule, overdue, due, last_success_scheduled_at, last_succeeded_at, last_failed_at, last_error}]}`.',
    flags: z.object({}),
    async run() {
      const { checkJobs } = await import('../../shared/jobs/watchdog');
      const data = await checkJobs({ emit: false });
      return {
        json: { data },
        text: data
          .map(
            (c) =>
              `${c.overdue ? 'OVERDUE' : 'ok     '}  ${c.job}  ${c.schedule}  last success ${c.last_succeeded_at ?? 'never'}${c.last_error ? `  last error: ${c.last_error}` : ''}`,
          )
          .join('\n'),
      };
    },
  },
  'metrics:summary': {
    usage: 'metrics:summary [--since ISO_DATE_TIME] [--name METRIC]',
    description:
      "The local stack's metrics, read back from the EMF documents its functions wrote (under the state directory), one line per metric and dimension set; with the queues' depths when the stack runs.",
    output:
      '`{source, documents, from, to, metrics: [{namespace, name, unit, dimensions, samples, sum, min, max, avg, p50, p99}], queues}`; `queues`: the depth, in-flight count and DLQ depth of each queue while the stack runs.',
    flags: z.object({
      since: z.iso.datetime().optional().describe('Only the figures written since this time.'),
      name: z.string().min(1).optional().describe('Only this metric.'),
    }),
    offline: true,
    async run(f) {
      if (process.env.ADMIN_TARGET === 'aws')
        throw new UsageError('metrics:summary reads the local stack; in AWS open the CloudWatch dashboard (stack output DashboardUrl)');
      const { summarizeMetrics, functionLogFile } = await import('../../infra/local/logs');
      const { lastStackPort } = await import('../../infra/local/find-stack');
      // The stack the other commands act on (PORT, else the one running); stopped, the last one that ran.
      const { stateDir, port, runtime } = lastStackPort();
      const summary = await summarizeMetrics(functionLogFile(stateDir, port), {
        since: f.since ? new Date(f.since as string) : undefined,
        name: f.name as string | undefined,
      });
      const queues = runtime ? await queueDepths(runtime.env) : null;
      const dims = (d: Record<string, string>) =>
        Object.entries(d)
          .filter(([k]) => k !== 'service')
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
      const lines = summary.metrics.map(
        (m) => `${m.name}{${dims(m.dimensions)}}  samples=${m.samples} sum=${m.sum} avg=${+m.avg.toFixed(2)} p50=${m.p50} p99=${m.p99} max=${m.max} ${m.unit}`,
      );
      for (const q of queues ?? []) lines.push(`queue ${q.queue}: visible=${q.visible} in_flight=${q.in_flight} dlq_visible=${q.dlq_visible}`);
      return {
        json: { ...summary, queues },
        text: lines.length ? lines.join('\n') : `No metrics in ${summary.source} yet.`,
      };
    },
  },
  'key:issue': {
    usage: 'key:issue --partner ID --member MEMBER_ID --env live|test [--name NAME] [--expires-at ISO_DATE_TIME]',
    description: 'Issue an API key for a member in one environment, optionally expiring. The secret is printed once.',
    output: '`{key_id, key, env}`: the secret is shown once.',
    flags: z.object({
      partner: partnerId,
      member: memberId,
      env,
      'expires-at': z.iso
        .datetime({ offset: true })
        .refine((at) => Date.parse(at) > Date.now(), 'must be in the future: a key that expired already would never work')
        .optional()
        .describe('When the key stops working (ISO 8601, in the future; default never).'),
      name: KeyName.optional().describe('What the partner calls the key, e.g. the system that holds it (1 to 64 characters, one line); shown in its key list.'),
    }),
    async run(f) {
      const k = await (await repo()).issueKey(f.partner as string, f.member as string, f.env as 'live' | 'test', {
        expiresAt: f['expires-at'] as string | undefined,
        name: f.name as string | undefined,
      });
      return { json: { key_id: k.key_id, key: k.key, env: k.env }, text: `Key ${k.key_id} (${k.env}): ${k.key}\nThe secret is shown once: store it now.` };
    },
  },
  'key:revoke': {
    usage: 'key:revoke --key-id KEY_ID',
    description: 'Revoke an API key; it stops working at once.',
    output: '`{key_id, revoked: true, revoked_at}`.',
    flags: z.object({
      'key-id': z
        .string()
        .regex(/^[a-z0-9]{12}$/, 'a key id is the 12 characters after sk_live_ / sk_test_')
        .describe('The key id: the 12 characters after sk_live_ or sk_test_.'),
    }),
    async run(f) {
      const k = await (await repo()).revokeKey(f['key-id'] as string);
      return { json: { key_id: k.key_id, revoked: true, revoked_at: k.revoked_at }, text: `Key ${k.key_id} revoked at ${k.revoked_at}.` };
    },
  },
};

/** Messages visible, in flight, and on the DLQ, of every queue of the running local stack. */
async function queueDepths(env: Record<string, string>) {
  const { GetQueueAttributesCommand, SQSClient } = await import('@aws-sdk/client-sqs');
  const { QUEUES } = await import('../../shared/queues');
  const sqs = new SQSClient({ region: env.AWS_REGION, endpoint: env.AWS_ENDPOINT_URL_SQS, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const attrs = async (url: string | undefined) =>
    url
      ? ((
          await sqs.send(
            new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
          )
        ).Attributes ?? {})
      : {};
  return Promise.all(
    Object.entries(QUEUES).map(async ([key, q]) => {
      const [main, dlq] = await Promise.all([attrs(env[q.envVar]), attrs(env[`${q.envVar}_DLQ`])]);
      return {
        queue: key,
        visible: Number(main.ApproximateNumberOfMessages ?? 0),
        in_flight: Number(main.ApproximateNumberOfMessagesNotVisible ?? 0),
        dlq_visible: Number(dlq.ApproximateNumberOfMessages ?? 0),
      };
    }),
  );
}

/** Progress of long commands goes to stderr, so stdout stays one JSON document. */
const progress = (line: string) => process.stderr.write(`${line}\n`);

/** Reads a JSON file given to a command, with a clear error. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read JSON from ${path}: ${(e as Error).message}`);
  }
}
