import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { accessKeys } from '../access/keys';
import { accessTable, type Table } from '../db/client';
import { isConditionFailed } from '../db/errors';
import { logger } from '../kernel/logger';
import { IDEMPOTENCY_LOCK_MS } from '../platform/idempotency';
import { type InvitationNames, invitationNames } from './invitation';

/**
 * What an invitation e-mail names, handed to the user pool's CustomMessage trigger through the access table.
 * AWS gives AdminCreateUser's ClientMetadata to the pre sign-up trigger only (API_AdminCreateUser), and the
 * CustomMessage event holds the user's attributes (request.userAttributes, its e-mail among them), the two
 * placeholders and no more (user-pool-lambda-custom-message): so the service writes the names under the
 * invitee's address for as long as its Cognito call lasts, and the trigger reads them with one GetItem.
 *
 * A first invitation holds the address: another one to the same address meanwhile (another bank's) is
 * refused, so the e-mail Cognito sends never names a bank other than the one whose user it creates. A resend
 * takes the address as it is: its user exists, so an invitation racing it cannot create one.
 */

/**
 * How long an invitation holds its address: the idempotency lock's time, which outlives any function (a route
 * runs 10 s at most, the trigger 5 s); a retry of an invitation cut short runs only after it, and finds it free.
 */
export const INVITATION_HOLD_MS = IDEMPOTENCY_LOCK_MS;

/** Another invitation to the address is being sent. */
export class InvitationInFlight extends Error {}

export function makePendingInvitations(table: Table = accessTable) {
  const Key = (email: string) => accessKeys.invitation(email);
  return {
    /** Runs `send` (AdminCreateUser) while `names` are pending for `email`; `exclusive`: refused while another is. */
    async during<T>(email: string, names: InvitationNames, send: () => Promise<T>, opts: { exclusive: boolean }): Promise<T> {
      const holder = randomUUID();
      const now = Date.now();
      const expiresAt = now + INVITATION_HOLD_MS;
      try {
        await table.client.send(
          new PutCommand({
            TableName: table.name(),
            Item: { ...Key(email), type: 'invitation', ...invitationNames(names), holder, expires_at: expiresAt, ttl: Math.ceil(expiresAt / 1000) },
            ...(opts.exclusive ? { ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now', ExpressionAttributeValues: { ':now': now } } : {}),
          }),
        );
      } catch (e) {
        if (isConditionFailed(e)) throw new InvitationInFlight('an invitation to this address is being sent');
        throw e;
      }
      try {
        return await send();
      } finally {
        // The names leave with the call; what a crash leaves expires (the trigger ignores it) and TTL deletes it.
        await table.client
          .send(
            new DeleteCommand({
              TableName: table.name(),
              Key: Key(email),
              ConditionExpression: '#holder = :holder',
              ExpressionAttributeNames: { '#holder': 'holder' },
              ExpressionAttributeValues: { ':holder': holder },
            }),
          )
          .catch((e: unknown) => {
            if (!isConditionFailed(e)) logger.warn('pending invitation not deleted: it expires', { error: (e as Error).name });
          });
      }
    },

    /** The names pending for `email` (strongly consistent: written just before), or undefined. */
    async names(email: string): Promise<Partial<InvitationNames> | undefined> {
      const r = await table.client.send(
        new GetCommand({
          TableName: table.name(),
          Key: Key(email),
          ConsistentRead: true,
          ProjectionExpression: 'partner_name, inviter_name, inviter_email, expires_at',
        }),
      );
      const item = r.Item as (Partial<InvitationNames> & { expires_at?: number }) | undefined;
      if (!item || typeof item.expires_at !== 'number' || item.expires_at < Date.now()) return undefined;
      const { expires_at: _, ...names } = item;
      return invitationNames(names);
    },
  };
}

export const pendingInvitations = makePendingInvitations();
