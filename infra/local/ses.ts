import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import * as z from 'zod';
import { jsonObject, refuseTunnels } from './http-guard';
import { closeServer, type ServerHandle } from './services';

/**
 * Amazon SES (API v2), emulated for what the service does with it: SendEmail (`POST /v2/email/outbound-emails`,
 * the REST-JSON protocol the SDK speaks) and GetAccount (`GET /v2/email/account`). Every accepted e-mail is
 * written to the local mailbox, one JSON file per recipient (`{from, to, subject, text, sent_at}`, what
 * `mail:list` reads). It refuses what SES refuses (docs/operations/local-stack.md, "The local SES"):
 * - a sender that is not a verified identity (the address, its domain or a parent domain): MessageRejected,
 *   "Email address is not verified. The following identities failed the check in region ...";
 * - in the sandbox (`sandbox`), any recipient that is not a verified identity either, in the same message
 *   (the SES mailbox simulator's addresses excepted);
 * - a configuration set that does not exist: NotFoundException;
 * - a message without a sender, a recipient, a subject or a body: BadRequestException.
 */
export interface LocalSesOptions {
  port: number;
  mailboxDir: string;
  region: string;
  /** The verified identities: domains or addresses. */
  identities: string[];
  configurationSets: string[];
  /** The account is in the SES sandbox: recipients must be verified identities too. */
  sandbox: boolean;
}

class SesError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** The address of `Name <address>` or of a bare address, lower-cased. */
export const bareAddress = (a: string) => (/<([^>]*)>\s*$/.exec(a)?.[1] ?? a).trim().toLowerCase();

/** Whether SES would take `address` as verified: the address itself, or its domain or a parent of it, is an identity. */
export function isVerified(address: string, identities: string[]): boolean {
  const verified = new Set(identities.map((i) => i.toLowerCase()));
  const a = bareAddress(address);
  if (verified.has(a)) return true;
  const labels = (a.split('@')[1] ?? '').split('.');
  return labels.some((_, i) => verified.has(labels.slice(i).join('.')));
}

const text = z.object({ Data: z.string().optional() });
/** What SendEmail reads of its body: a member of another type is refused, as SES refuses what its JSON protocol cannot read. */
const SendEmailBody = z.object({
  FromEmailAddress: z.string().optional(),
  Destination: z
    .object({ ToAddresses: z.array(z.string()).optional(), CcAddresses: z.array(z.string()).optional(), BccAddresses: z.array(z.string()).optional() })
    .optional(),
  ConfigurationSetName: z.string().optional(),
  Content: z
    .object({ Simple: z.object({ Subject: text.optional(), Body: z.object({ Text: text.optional(), Html: text.optional() }).optional() }).optional() })
    .optional(),
});
type SendEmailBody = z.infer<typeof SendEmailBody>;

export async function startLocalSes(o: LocalSesOptions): Promise<ServerHandle> {
  mkdirSync(o.mailboxDir, { recursive: true });
  const region = o.region.toUpperCase();
  /** When each accepted recipient was sent to, for GetAccount's SentLast24Hours. */
  const sent: number[] = [];

  const send = (b: SendEmailBody) => {
    const from = b.FromEmailAddress?.trim();
    if (!from) throw new SesError(400, 'BadRequestException', 'Missing required parameter FromEmailAddress.');
    const d = b.Destination ?? {};
    const recipients = [...(d.ToAddresses ?? []), ...(d.CcAddresses ?? []), ...(d.BccAddresses ?? [])];
    if (recipients.length === 0) throw new SesError(400, 'BadRequestException', 'The message must have at least one recipient.');
    const simple = b.Content?.Simple;
    const text = simple?.Body?.Text?.Data ?? simple?.Body?.Html?.Data;
    if (simple?.Subject?.Data === undefined || text === undefined)
      throw new SesError(400, 'BadRequestException', 'A simple message needs a subject and a text or HTML body.');
    if (b.ConfigurationSetName !== undefined && !o.configurationSets.includes(b.ConfigurationSetName))
      throw new SesError(404, 'NotFoundException', `Configuration set <${b.ConfigurationSetName}> does not exist.`);
    const failed = [from, ...(o.sandbox ? recipients.filter((r) => !bareAddress(r).endsWith('@simulator.amazonses.com')) : [])].filter(
      (a) => !isVerified(a, o.identities),
    );
    if (failed.length)
      throw new SesError(
        400,
        'MessageRejected',
        `Email address is not verified. The following identities failed the check in region ${region}: ${[...new Set(failed.map(bareAddress))].join(', ')}`,
      );
    const messageId = `${Date.now().toString(16)}-${randomUUID()}-000000`;
    const sentAt = new Date().toISOString();
    for (const to of recipients) {
      writeFileSync(
        join(o.mailboxDir, `${sentAt.replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.json`),
        JSON.stringify(
          {
            from,
            to: bareAddress(to),
            subject: simple.Subject.Data,
            text,
            ...(simple.Body?.Html?.Data !== undefined ? { html: simple.Body.Html.Data } : {}),
            sent_at: sentAt,
            message_id: messageId,
          },
          null,
          2,
        ),
      );
      sent.push(Date.now());
    }
    forget();
    return { MessageId: messageId };
  };

  const forget = () => {
    while (sent.length && sent[0]! < Date.now() - 86_400_000) sent.shift();
  };
  const account = () => {
    forget();
    return {
      ProductionAccessEnabled: !o.sandbox,
      SendingEnabled: true,
      EnforcementStatus: 'HEALTHY',
      // The sandbox's quotas (SES's figures); the emulation does not enforce them.
      SendQuota: o.sandbox
        ? { Max24HourSend: 200, MaxSendRate: 1, SentLast24Hours: sent.length }
        : { Max24HourSend: -1, MaxSendRate: -1, SentLast24Hours: sent.length },
    };
  };

  const answer = (res: ServerResponse, status: number, body: unknown, type?: string) => {
    res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
    res.end(JSON.stringify(body));
  };
  const server = refuseTunnels(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const path = (req.url ?? '/').split('?')[0];
          if (req.method === 'POST' && path === '/v2/email/outbound-emails') {
            const body = SendEmailBody.safeParse(jsonObject(Buffer.concat(chunks).toString('utf8') || '{}'));
            if (!body.success) throw new SesError(400, 'SerializationException', 'The request body is not a SendEmail request (a JSON object of its members).');
            return answer(res, 200, send(body.data));
          }
          if (req.method === 'GET' && path === '/v2/email/account') return answer(res, 200, account());
          throw new SesError(404, 'NotFoundException', `${req.method} ${path} is not emulated by the local SES (SendEmail and GetAccount are).`);
        } catch (e) {
          const err = e instanceof SesError ? e : new SesError(500, 'InternalFailure', (e as Error).message);
          answer(res, err.status, { message: err.message }, err.type);
        }
      });
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', resolve);
  });
  return { endpoint: `http://127.0.0.1:${o.port}`, stop: () => closeServer(server) };
}
