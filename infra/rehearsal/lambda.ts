import { type Assembly, referencedResource, resourcesOf } from './assembly';
import { type CheckResult, type Finding, finding } from './findings';
import { deployedText } from './values';

/** Lambda's quota on a function's environment variables, all of them together (Lambda quotas). */
export const ENVIRONMENT_BYTES = 4 * 1024;

/** The variables Lambda sets itself: a function may not set them (Lambda, "Defined runtime environment variables"). */
export const RESERVED_VARIABLES = [
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
  'TZ',
];

/** What each trigger waits for (seconds). */
export const TRIGGER_LIMITS = {
  /** An HTTP API integration times out at 30 s at most (its TimeoutInMillis, default 30 000). */
  httpApiSeconds: 30,
  /** Lambda's guidance for an SQS event source: a visibility timeout of at least six times the function's. */
  sqsVisibilityFactor: 6,
  /** Cognito waits 5 s for a trigger's answer, then fails the user's request. */
  cognitoSeconds: 5,
} as const;

const DEFAULT_TIMEOUT = 3;
const DEFAULT_VISIBILITY = 30;

/**
 * Each function's environment fits Lambda's 4 KB and sets no reserved variable; its timeout fits what invokes it:
 * an HTTP API route answers within the integration's timeout, an SQS queue hides a message long enough for six
 * tries of it, Cognito waits 5 s.
 */
export function checkLambda(assembly: Assembly): CheckResult {
  const check = 'Lambda';
  const findings: Finding[] = [];
  let functions = 0;
  let largestEnvironment = 0;
  let triggers = 0;
  const timeoutOf = (p: Record<string, unknown> | undefined) => Number(p?.Timeout ?? DEFAULT_TIMEOUT);
  for (const [stack, id, r] of resourcesOf(assembly)) {
    const p = r.Properties ?? {};
    const where = `${stack.name} ${id}`;
    if (r.Type === 'AWS::Lambda::Function') {
      functions++;
      const variables = (p.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      const bytes = Buffer.byteLength(JSON.stringify(Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, deployedText(v, stack)]))));
      largestEnvironment = Math.max(largestEnvironment, bytes);
      if (bytes > ENVIRONMENT_BYTES)
        findings.push(finding(check, 'error', where, `an environment of ${bytes} bytes (Lambda takes at most ${ENVIRONMENT_BYTES})`));
      for (const name of Object.keys(variables).filter((k) => RESERVED_VARIABLES.includes(k))) {
        findings.push(finding(check, 'error', where, `sets ${name}, which Lambda reserves`));
      }
    }
    if (r.Type === 'AWS::ApiGatewayV2::Integration') {
      const fn = referencedResource(stack, p.IntegrationUri);
      if (fn?.resource.Type !== 'AWS::Lambda::Function') continue;
      triggers++;
      const limit = Number(p.TimeoutInMillis ?? TRIGGER_LIMITS.httpApiSeconds * 1000) / 1000;
      const timeout = timeoutOf(fn.resource.Properties);
      if (timeout > limit)
        findings.push(
          finding(check, 'error', `${fn.stack.name} ${fn.id}`, `a timeout of ${timeout} s behind an HTTP API integration that answers 503 after ${limit} s`),
        );
    }
    if (r.Type === 'AWS::Lambda::EventSourceMapping') {
      const fn = referencedResource(stack, p.FunctionName);
      const source = referencedResource(stack, p.EventSourceArn);
      if (fn?.resource.Type !== 'AWS::Lambda::Function' || source?.resource.Type !== 'AWS::SQS::Queue') continue;
      triggers++;
      const timeout = timeoutOf(fn.resource.Properties);
      const visibility = Number(source.resource.Properties?.VisibilityTimeout ?? DEFAULT_VISIBILITY);
      if (visibility < timeout * TRIGGER_LIMITS.sqsVisibilityFactor) {
        findings.push(
          finding(
            check,
            'error',
            `${fn.stack.name} ${fn.id}`,
            `a timeout of ${timeout} s on queue ${source.id}, whose visibility timeout is ${visibility} s (at least ${TRIGGER_LIMITS.sqsVisibilityFactor}x: ${timeout * TRIGGER_LIMITS.sqsVisibilityFactor} s)`,
          ),
        );
      }
    }
    if (r.Type === 'AWS::Cognito::UserPool') {
      for (const target of Object.values((p.LambdaConfig as Record<string, unknown> | undefined) ?? {})) {
        const fn = referencedResource(stack, target);
        if (fn?.resource.Type !== 'AWS::Lambda::Function') continue;
        triggers++;
        const timeout = timeoutOf(fn.resource.Properties);
        if (timeout > TRIGGER_LIMITS.cognitoSeconds) {
          findings.push(
            finding(
              check,
              'warning',
              `${fn.stack.name} ${fn.id}`,
              `a timeout of ${timeout} s as a Cognito trigger, which Cognito abandons after ${TRIGGER_LIMITS.cognitoSeconds} s`,
            ),
          );
        }
      }
    }
  }
  return { check, findings, figures: { functions, 'triggers checked': triggers, 'largest environment (bytes)': largestEnvironment } };
}
