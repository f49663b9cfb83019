/** The page of the runbook sections, from the repository root. */
export const RUNBOOK_PAGE = 'docs/operations/alarms-and-runbooks.md';

/**
 * The runbook sections the alarms point to. Each alarm's description names
 * its section's anchor; a test checks that every one is a heading of
 * RUNBOOK_PAGE ("### Runbook: <title>").
 */
export const RUNBOOK = {
  dlq: 'A message on a dead-letter queue',
  queueAge: 'A queue is not drained',
  deadLetterRate: 'The webhook dead-letter rate is high',
  route5xx: 'A route answers 5xx',
  api5xx: 'The API answers 5xx',
  lambdaErrors: 'A function fails',
  throttles: 'Lambda throttles',
  dynamoThrottles: 'DynamoDB throttles requests',
  dynamoErrors: 'DynamoDB system errors',
  jobFailed: 'A scheduled job failed',
  jobOverdue: 'A scheduled job did not run',
  mailFailed: 'SES refuses e-mail',
  sesReputation: 'The SES bounce or complaint rate is high',
  tzData: "The runtime's time-zone data differs",
  asyncFailed: 'An asynchronous event failed',
} as const;

export type RunbookSection = keyof typeof RUNBOOK;

/** GitHub's anchor of the heading "Runbook: <title>". */
export const runbookAnchor = (section: RunbookSection) =>
  `runbook-${RUNBOOK[section]
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-')}`;
