import { describe, expect, it } from 'vitest';
import { INVITATION_MESSAGE_TRIGGER } from '../../infra/constructs/console';
import { CognitoException } from '../../infra/local/cognito';
import { cognitoTriggers } from '../../infra/local/cognito-triggers';
import type { IamModel } from '../../infra/local/iam/model';

const poolArn = 'arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_local';
const fnArn = 'arn:aws:lambda:us-east-1:123456789012:function:InvitationMessage';
const model = {
  functions: { [INVITATION_MESSAGE_TRIGGER]: { arn: fnArn } },
  userPoolTriggers: [{ userPoolArn: poolArn, trigger: 'CustomMessage', functionArn: fnArn }],
} as unknown as IamModel;

describe("the local Cognito's triggers", () => {
  it("fail the operation as Cognito does when the function's resource policy does not let this pool invoke it", async () => {
    const asked: unknown[] = [];
    const { customMessage } = cognitoTriggers({
      model,
      userPoolArn: poolArn,
      allows: async (principal, r) => {
        asked.push({ principal, ...r });
        return false;
      },
      log: () => undefined,
    });
    const failure = await customMessage!({ triggerSource: 'CustomMessage_AdminCreateUser' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CognitoException);
    expect(failure).toMatchObject({ type: 'UnexpectedLambdaException', message: 'CustomMessage invocation failed due to error AccessDeniedException.' });
    expect(asked).toEqual([
      {
        principal: 'service:cognito-idp.amazonaws.com',
        action: 'lambda:InvokeFunction',
        resource: fnArn,
        context: { 'aws:SourceArn': poolArn, 'aws:SourceAccount': '123456789012' },
      },
    ]);
  });

  it("are the template's: a pool without a CustomMessage trigger has none (Cognito sends its own invitation)", () => {
    expect(cognitoTriggers({ model: { ...model, userPoolTriggers: [] }, userPoolArn: poolArn, log: () => undefined })).toEqual({});
  });
});
