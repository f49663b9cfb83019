import type { CustomMessageTriggerEvent } from 'aws-lambda';
import * as z from 'zod';
import { loadConfig } from '../../shared/kernel/config';
import { instrumented } from '../../shared/kernel/instrument';
import { logger } from '../../shared/kernel/logger';
import { invitationMessage } from '../../shared/team/invitation';
import { pendingInvitations } from '../../shared/team/pending-invitations';

const config = z.object({ CONSOLE_URL: z.url() });

/**
 * The user pool's CustomMessage trigger: the console invitation (first and resent) names the bank and the
 * member who invited, as the service left them pending for the invitee's address (one GetItem; Cognito waits
 * 5 s at most). Without them (an invitation sent from the AWS console), or when they cannot be read (a failing
 * trigger would fail the invitation itself), it names no one. Every other message keeps the pool's own text.
 */
export const handler = instrumented('cognito custom-message', async (event: CustomMessageTriggerEvent) => {
  if (event.triggerSource !== 'CustomMessage_AdminCreateUser') return event;
  const email = event.request.userAttributes.email;
  const names = email
    ? await pendingInvitations.names(email).catch((e: unknown) => {
        logger.error('pending invitation unread: the invitation names no one', { error: (e as Error).name });
        return undefined;
      })
    : undefined;
  const { emailSubject, emailMessage } = invitationMessage({
    names: names ?? {},
    consoleUrl: loadConfig(config).CONSOLE_URL,
    codeParameter: event.request.codeParameter,
    usernameParameter: event.request.usernameParameter ?? '{username}',
  });
  event.response.emailSubject = emailSubject;
  event.response.emailMessage = emailMessage;
  return event;
});
