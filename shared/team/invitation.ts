import { BIDI_CONTROL, hasControlCharacter } from '../http/bounds';

/**
 * The console invitation e-mail. Cognito's invitation template is one text for the whole pool ({username} and
 * {####} only), so a CustomMessage trigger (functions/team/invitation-message.ts) writes it: the bank's name and
 * the member who invited, which a bank employee trained against phishing looks for. The trigger reads them from
 * the pending invitation the service writes for the Cognito call (./pending-invitations.ts): AWS passes
 * AdminCreateUser's ClientMetadata to the pre sign-up trigger only (API_AdminCreateUser). Cognito sends the
 * message as HTML and replaces the placeholders it gives the trigger (request.codeParameter,
 * request.usernameParameter) with the temporary password and the user name.
 */

/** What an invitation names (AdminCreateUser, and its MessageAction RESEND). */
export interface InvitationNames {
  partner_name: string;
  /** Absent when an operator invites (the admin CLI): the e-mail then names the bank only. */
  inviter_name?: string;
  inviter_email?: string;
}

/** The names an invitation has: blank ones are left out. */
export const invitationNames = (m: Partial<InvitationNames>): Partial<InvitationNames> =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v === 'string' && v.trim() !== ''));

/** Names longer than this are cut (the schemas allow 100; a partner's name is an operator's). */
const MAX_NAME = 100;
const BIDI_CONTROLS = new RegExp(BIDI_CONTROL.source, 'gu');
/** Zero-width characters, which can hide inside a name a text that reads as another. */
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/gu;
/** A word that mail clients would turn into a link: a scheme, www., an address, or a dotted host name. */
const LINKABLE = /^(?:[a-z][a-z0-9+.-]*:\/*|www\.)|@|[a-z0-9-]\.[a-z]{2,}/i;

/**
 * A name as the e-mail may show it: one line (control, bidirectional and zero-width characters dropped, spaces
 * collapsed), at most 100 characters, and no word a mail client would link: in a host-like word every `.` is
 * shown as `[.]`, `@` as `[at]` and `://` as `[:]//`, so `evil.example` reads as text and goes nowhere.
 */
export function neutraliseName(raw: string): string {
  const oneLine = [...raw.replace(BIDI_CONTROLS, '').replace(INVISIBLE, '')].map((ch) => (hasControlCharacter(ch) ? ' ' : ch)).join('');
  const words = oneLine.split(/\s+/).filter(Boolean);
  const defused = words.map((w) => (LINKABLE.test(w) ? w.replace(/:\/\//g, '[:]//').replace(/@/g, '[at]').replace(/\./g, '[.]') : w));
  const text = defused.join(' ');
  return [...text].length > MAX_NAME ? `${[...text].slice(0, MAX_NAME - 1).join('')}…` : text;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export interface InvitationInput {
  names: Partial<InvitationNames>;
  /** The console's sign-in page. */
  consoleUrl: string;
  /** Cognito's placeholders, replaced by the temporary password and the user name after the trigger. */
  codeParameter: string;
  usernameParameter: string;
}

/** The invitation's subject (plain text) and HTML body; without a partner name, the bank is "your bank". */
export function invitationMessage(input: InvitationInput): { emailSubject: string; emailMessage: string } {
  const bank = input.names.partner_name ? neutraliseName(input.names.partner_name) : '';
  const inviter = input.names.inviter_name ? neutraliseName(input.names.inviter_name) : '';
  const inviterEmail = input.names.inviter_email ? neutraliseName(input.names.inviter_email) : '';
  const html = escapeHtml;
  // A member without a name (one an operator added without) is named by its address.
  const who = inviter ? `${html(inviter)}${inviterEmail ? ` (${html(inviterEmail)})` : ''}` : html(inviterEmail);
  const where = bank ? `the Partner Travel console of ${html(bank)}` : "your bank's Partner Travel console";
  const url = html(input.consoleUrl);
  const lines = [
    `<p>${who ? `${who} invited you to ${where}.` : `You are invited to ${where}.`}</p>`,
    `<p>Sign in at <a href="${url}">${url}</a> with<br>`,
    `e-mail: ${input.usernameParameter}<br>`,
    `temporary password: ${input.codeParameter}<br>`,
    '</p>',
    '<p>You will choose your own password and set up an authenticator app. The temporary password expires in 7 days.</p>',
    `<p>If you do not know ${who ? html(inviter || inviterEmail) : 'who invited you'}${bank ? ` or do not work with ${html(bank)}` : ''}, do not sign in: tell your IT security team.</p>`,
  ];
  return {
    emailSubject: bank ? subjectNaming(bank) : 'Your invitation to the Partner Travel console',
    emailMessage: lines.join('\n'),
  };
}

/** Cognito's limit on an e-mail subject (EmailSubject: 1-140 characters): a long bank name is cut to fit. */
export const MAX_SUBJECT = 140;
function subjectNaming(bank: string): string {
  const [before, after] = ['Your invitation to the ', ' Partner Travel console'];
  const room = MAX_SUBJECT - before.length - after.length;
  const name = [...bank].length > room ? `${[...bank].slice(0, room - 1).join('')}…` : bank;
  return `${before}${name}${after}`;
}

/** The text part of an HTML message (the local Cognito sends both): lines for <br> and </p>, no tags, entities decoded. */
export function htmlToText(htmlText: string): string {
  return htmlText
    .replace(/<br\s*\/?>\n?/gi, '\n')
    .replace(/<\/p>\n?/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .concat('\n');
}
