import type { Context, CustomMessageTriggerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../infra/local/services';
import { logger } from '../../shared/kernel/logger';
import { htmlToText, invitationMessage, invitationNames, MAX_SUBJECT, neutraliseName } from '../../shared/team/invitation';

const base = { consoleUrl: 'https://console.example/console/', codeParameter: '{####}', usernameParameter: '{username}' };

describe('the console invitation e-mail', () => {
  it('names the bank and the member who invited, and keeps both of Cognito placeholders', () => {
    const m = invitationMessage({ ...base, names: { partner_name: 'Banque Atlas', inviter_name: 'Salma Bennani', inviter_email: 'salma@atlas.example' } });
    expect(m.emailSubject).toBe('Your invitation to the Banque Atlas Partner Travel console');
    expect(m.emailMessage).toContain('Salma Bennani (salma[at]atlas[.]example) invited you to the Partner Travel console of Banque Atlas.');
    expect(m.emailMessage).toContain('e-mail: {username}');
    expect(m.emailMessage).toContain('temporary password: {####}');
    expect(m.emailMessage).toContain('<a href="https://console.example/console/">');
    // The tests' and a reader's text part: the password alone after its label.
    expect(htmlToText(m.emailMessage.replace('{####}', 'Ab3!cdefGHJK'))).toMatch(/temporary password: Ab3!cdefGHJK\n/);
  });

  it('without an inviter (an operator invites), names the bank only; without names, no one', () => {
    expect(invitationMessage({ ...base, names: { partner_name: 'Banque Atlas' } }).emailMessage).toContain(
      'You are invited to the Partner Travel console of Banque Atlas.',
    );
    // A member who has no name (an operator added it without one) is named by its address.
    const unnamed = invitationMessage({ ...base, names: { partner_name: 'Banque Atlas', inviter_email: 'salma@atlas.example' } }).emailMessage;
    expect(unnamed).toContain('salma[at]atlas[.]example invited you to the Partner Travel console of Banque Atlas.');
    expect(unnamed).toContain('If you do not know salma[at]atlas[.]example or do not work with Banque Atlas');
    const bare = invitationMessage({ ...base, names: {} });
    expect(bare.emailSubject).toBe('Your invitation to the Partner Travel console');
    expect(bare.emailMessage).toContain("You are invited to your bank's Partner Travel console.");
  });

  it('escapes HTML, drops control, bidirectional and zero-width characters, and defuses URLs in names', () => {
    const m = invitationMessage({
      ...base,
      names: {
        partner_name: 'Atlas <script>alert(1)</script> & "Co"',
        inviter_name: 'Eve\u202Egnp.exe\u200B\r\nBcc: x https://evil.example/login www.evil.example',
      },
    });
    expect(m.emailMessage).not.toMatch(/<script|\u202e|\u200b|\r/);
    expect(m.emailMessage).toContain('Atlas &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;');
    expect(m.emailMessage).toContain('Evegnp[.]exe Bcc: x https[:]//evil[.]example/login www[.]evil[.]example');
    expect(m.emailMessage).not.toContain('evil.example');
    // Only the console's own link is a link.
    expect(m.emailMessage.match(/<a /g)).toHaveLength(1);
    // The subject is one line of plain text.
    expect(m.emailSubject).not.toMatch(/[\r\n]/);
  });

  it('keeps ordinary names as they are, and cuts long ones', () => {
    expect(neutraliseName('  Crédit  Agricole\tS.A. ')).toBe('Crédit Agricole S.A.');
    expect(neutraliseName('Caisse Ltd. Group')).toBe('Caisse Ltd. Group');
    expect([...neutraliseName('x'.repeat(300))]).toHaveLength(100);
  });

  it("keeps the subject within Cognito's 140 characters, however long the bank's name", () => {
    const { emailSubject } = invitationMessage({ ...base, names: { partner_name: 'Banque '.repeat(30) } });
    expect([...emailSubject].length).toBeLessThanOrEqual(MAX_SUBJECT);
    expect(emailSubject).toMatch(/^Your invitation to the Banque .*… Partner Travel console$/);
  });

  it('keeps only the names it has', () => {
    expect(invitationNames({ partner_name: 'Atlas', inviter_name: ' ' })).toEqual({ partner_name: 'Atlas' });
  });
});

describe('the invitation trigger', () => {
  beforeAll(async () => {
    // Its table on a port where nothing listens: its one read fails.
    Object.assign(process.env, {
      CONSOLE_URL: 'https://console.example/console/',
      ACCESS_TABLE: 'access',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${await freePort()}`,
    });
  });
  const event = (triggerSource: string, userAttributes: Record<string, string> = {}) =>
    ({
      version: '1',
      triggerSource,
      region: 'eu-west-1',
      userPoolId: 'eu-west-1_x',
      userName: 'u',
      callerContext: { awsSdkVersion: 'x', clientId: 'CLIENT_ID_NOT_APPLICABLE' },
      request: { userAttributes, codeParameter: '{####}', linkParameter: '', usernameParameter: '{username}', clientMetadata: { partner_name: 'Atlas' } },
      response: { smsMessage: null, emailMessage: null, emailSubject: null },
    }) as unknown as CustomMessageTriggerEvent;
  const context = { awsRequestId: 'r', functionName: 'f' } as Context;

  it('answers the invitation (CustomMessage_AdminCreateUser), never from ClientMetadata, and leaves every other message alone', async () => {
    const { handler } = await import('../../functions/team/invitation-message');
    // No e-mail among the attributes: nothing pending to read. Cognito gives AdminCreateUser's ClientMetadata to
    // the pre sign-up trigger only; a clientMetadata here (a pool that passed one) is not taken for the names.
    const invited = await handler(event('CustomMessage_AdminCreateUser'), context);
    expect(invited.response.emailMessage).toContain("You are invited to your bank's Partner Travel console.");
    expect(invited.response.emailMessage).not.toContain('Atlas');
    expect(invited.response.emailMessage).toContain('temporary password: {####}');
    const reset = await handler(event('CustomMessage_ForgotPassword'), context);
    expect(reset.response.emailMessage).toBeNull();
  });

  it('still writes the invitation, naming no one, when the pending names cannot be read; the log line has no address', async () => {
    const { handler } = await import('../../functions/team/invitation-message');
    const errors = vi.spyOn(logger, 'error');
    const invited = await handler(event('CustomMessage_AdminCreateUser', { email: 'salma@bank.example' }), context);
    expect(invited.response.emailMessage).toContain("You are invited to your bank's Partner Travel console.");
    expect(invited.response.emailMessage).toContain('e-mail: {username}');
    expect(errors).toHaveBeenCalledWith('pending invitation unread: the invitation names no one', { error: expect.any(String) });
    expect(JSON.stringify(errors.mock.calls)).not.toContain('salma');
    errors.mockRestore();
  });
});
