import { INVITATION_MESSAGE_TRIGGER } from '../constructs/console';
import { CognitoException, type CognitoTrigger, type CognitoTriggers } from './cognito';
import type { IamModel } from './iam/model';
import { LOCAL_ACCOUNT } from './iam/model';
import type { IamRequest } from './iam/requests';
import { invoke, lambdaContext } from './lambda';

/**
 * The user pool's Lambda triggers, for the local Cognito: the functions the template's LambdaConfig names,
 * invoked in-process as Cognito invokes them, once Cognito (`cognito-idp.amazonaws.com`) may invoke them:
 * lambda:InvokeFunction under the function's resource policy, for this pool (aws:SourceArn). As in AWS, a
 * refusal fails the operation (UnexpectedLambdaException, "... invocation failed due to error
 * AccessDeniedException") and so does a function that throws (UserLambdaValidationException).
 * Without the model (LOCAL_IAM=off), the one trigger the CDK binds, unchecked.
 */
export function cognitoTriggers(opts: {
  model: IamModel | undefined;
  userPoolArn: string;
  allows?: (principal: string, r: IamRequest) => Promise<boolean>;
  log: (line: string) => void;
}): CognitoTriggers {
  if (!opts.model) return { customMessage: trigger('CustomMessage', INVITATION_MESSAGE_TRIGGER, undefined, opts) };
  const bound = opts.model.userPoolTriggers.find((t) => t.userPoolArn === opts.userPoolArn && t.trigger === 'CustomMessage');
  if (!bound) return {};
  const entry = Object.entries(opts.model.functions).find(([, f]) => f.arn === bound.functionArn)?.[0];
  if (!entry) throw new Error(`the user pool's CustomMessage trigger ${bound.functionArn} is no function of the templates`);
  return { customMessage: trigger('CustomMessage', entry, bound.functionArn, opts) };
}

function trigger(
  name: string,
  entry: string,
  arn: string | undefined,
  opts: { userPoolArn: string; allows?: (principal: string, r: IamRequest) => Promise<boolean>; log: (line: string) => void },
): CognitoTrigger {
  return async (event) => {
    if (arn && opts.allows) {
      const allowed = await opts.allows('service:cognito-idp.amazonaws.com', {
        action: 'lambda:InvokeFunction',
        resource: arn,
        context: { 'aws:SourceArn': opts.userPoolArn, 'aws:SourceAccount': LOCAL_ACCOUNT },
      });
      if (!allowed) {
        opts.log(`[cognito] the user pool may not invoke its ${name} trigger ${entry}`);
        throw new CognitoException('UnexpectedLambdaException', `${name} invocation failed due to error AccessDeniedException.`);
      }
    }
    try {
      return await invoke(entry, event, lambdaContext(entry, 5_000));
    } catch (e) {
      throw new CognitoException('UserLambdaValidationException', `${name} failed with error ${(e as Error).message}.`);
    }
  };
}
