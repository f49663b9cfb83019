import type { CustomMessageTriggerEvent } from 'aws-lambda';
import * as z from 'zod';
import { loadConfig } from '../../shared/kernel/config';
import { instrumented } from '../../shared/kernel/instrument';
import { invitationMessage } from '../../shared/team/invitation';

const config = z.object({ CONSOLE_URL: z.url() });

/**
 * The user pool's CustomMessage trigger: the console invitation (first and resent) names the bank and the
 * member who invited, from AdminCreateUser's ClientMetadata. Every other message keeps the pool's own text.
 * It makes no AWS call.
 */
export const handler = instrumented('cognito custom-message', async (event: CustomMessageTriggerEvent) => {
  if (event.triggerSource !== 'CustomMessage_AdminCreateUser') return event;
  const { emailSubject, emailMessage } = invitationMessage({
    metadata: event.request.clientMetadata ?? {},
    consoleUrl: loadConfig(config).CONSOLE_URL,
    codeParameter: event.request.codeParameter,
    usernameParameter: event.request.usernameParameter ?? '{username}',
  });
  event.response.emailSubject = emailSubject;
  event.response.emailMessage = emailMessage;
  return event;
});
