import type { Context, CustomMessageTriggerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { htmlToText, invitationMessage, invitationMetadata, MAX_SUBJECT, neutraliseName } from '../../shared/team/invitation';

const base = { consoleUrl: 'https://console.example/console/', codeParameter: '{####}', usernameParameter: '{username}' };

describe('the console invitation e-mail', () => {
  it('names the bank and the member who invited, and keeps both of Cognito placeholders', () => {
    const m = invitationMessage({ ...base, metadata: { partner_name: 'Banque Atlas', inviter_name: 'Salma Bennani', inviter_email: 'salma@atlas.example' } });
    expect(m.emailSubject).toBe('Your invitation to the Banque Atlas Partner Travel console');
    expect(m.emailMessage).toContain('Salma Bennani (salma[at]atlas[.]example) invited you to the Partner Travel console of Banque Atlas.');
    expect(m.emailMessage).toContain('e-mail: {username}');
    expect(m.emailMessage).toContain('temporary password: {####}');
    expect(m.emailMessage).toContain('<a href="https://console.example/console/">');
    // The tests' and a reader's text part: the password alone after its label.
    expect(htmlToText(m.emailMessage.replace('{####}', 'Ab3!cdefGHJK'))).toMatch(/temporary password: Ab3!cdefGHJK\n/);
  });

  it('without an inviter (an operator invites), names the bank only; without metadata, no one', () => {
    expect(invitationMessage({ ...base, metadata: { partner_name: 'Banque Atlas' } }).emailMessage).toContain(
      'You are invited to the Partner Travel console of Banque Atlas.',
    );
    const bare = invitationMessage({ ...base, metadata: {} });
    expect(bare.emailSubject).toBe('Your invitation to the Partner Travel console');
    expect(bare.emailMessage).toContain("You are invited to your bank's Partner Travel console.");
  });

  it('escapes HTML, drops control, bidirectional and zero-width characters, and defuses URLs in names', () => {
    const m = invitationMessage({
      ...base,
      metadata: {
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
    const { emailSubject } = invitationMessage({ ...base, metadata: { partner_name: 'Banque '.repeat(30) } });
    expect([...emailSubject].length).toBeLessThanOrEqual(MAX_SUBJECT);
    expect(emailSubject).toMatch(/^Your invitation to the Banque .*… Partner Travel console$/);
  });

  it('sends only the names it has (ClientMetadata holds strings)', () => {
    expect(invitationMetadata({ partner_name: 'Atlas', inviter_name: ' ' })).toEqual({ partner_name: 'Atlas' });
  });

  it('the trigger answers the invitation (CustomMessage_AdminCreateUser) and leaves every other message alone', async () => {
    process.env.CONSOLE_URL = 'https://console.example/console/';
    const { handler } = await import('../../functions/team/invitation-message');
    const event = (triggerSource: string) =>
      ({
        version: '1',
        triggerSource,
        region: 'eu-west-1',
        userPoolId: 'eu-west-1_x',
        userName: 'u',
        callerContext: { awsSdkVersion: 'x', clientId: 'CLIENT_ID_NOT_APPLICABLE' },
        request: { userAttributes: {}, codeParameter: '{####}', linkParameter: '', usernameParameter: '{username}', clientMetadata: { partner_name: 'Atlas' } },
        response: { smsMessage: null, emailMessage: null, emailSubject: null },
      }) as unknown as CustomMessageTriggerEvent;
    const context = { awsRequestId: 'r', functionName: 'f' } as Context;
    const invited = await handler(event('CustomMessage_AdminCreateUser'), context);
    expect(invited.response.emailMessage).toContain('Partner Travel console of Atlas');
    const reset = await handler(event('CustomMessage_ForgotPassword'), context);
    expect(reset.response.emailMessage).toBeNull();
  });
});
