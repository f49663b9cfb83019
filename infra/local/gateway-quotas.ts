import type { IncomingMessage } from 'node:http';

/**
 * API Gateway's HTTP API quotas and Lambda's invocation payload quota, and what a
 * client gets when a request meets one. The local gateway answers these itself,
 * as AWS does, before any function runs (or, for an answer too large or too late,
 * instead of the function's answer): a test that passes locally does not pass
 * only because the emulation was looser.
 */

/**
 * Request line and headers: at most 10 240 bytes ("Total combined size of request line and header
 * values", https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html). Counted
 * as the request line plus each header line without its line end (names too), so that the count is no
 * looser than the quota's wording nor than the front end's parser, whose message counts header lines.
 */
export const HEAD_MAX_BYTES = 10_240;

/** Body: at most 10 MB, 10 485 760 bytes ("Payload size 10 MB", same page; the figure is the one AWS's answer names). */
export const BODY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The event a synchronous invocation carries, as JSON: at most 6 MB, 6 291 456 bytes (Invoke: "For
 * synchronous invocations, the maximum payload size is 6 MB",
 * https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html; through API Gateway the refusal reads
 * "6294149 byte payload is too large for the RequestResponse invocation type (limit 6291456 bytes)",
 * https://theburningmonk.com/2020/04/hit-the-6mb-lambda-payload-limit-heres-what-you-can-do/). The body
 * is in the event as text, JSON-escaped, or base64 when it is not UTF-8 (4/3 of its size).
 */
export const EVENT_MAX_BYTES = 6 * 1024 * 1024;

/**
 * The function's answer, as JSON: at most 6 291 556 bytes ("Response payload size exceeded maximum
 * allowed payload size (6291556 bytes)", Function.ResponseSizeTooLarge; Lambda still ran the function,
 * https://zaccharles.medium.com/deep-dive-lambdas-response-payload-size-limit-8aedba9530ed).
 */
export const RESPONSE_MAX_BYTES = 6 * 1024 * 1024 + 100;

/**
 * Integration timeout: 30 s, the HTTP API maximum and its default ("Maximum integration timeout 30
 * seconds", the quotas page above; 29 s is REST APIs', https://github.com/awsdocs/amazon-api-gateway-developer-guide/pull/74).
 * The function is not stopped: it may still commit, and its answer goes nowhere. No route's function
 * timeout reaches it (test/unit/gateway-timeout.test.ts): in AWS a slow function's own 500 (middy, at its
 * deadline) comes first.
 */
export const INTEGRATION_TIMEOUT_MS = 30_000;

export interface GatewayAnswer {
  status: number;
  contentType: string;
  body: string;
  /**
   * Whether the answer carries `apigw-requestid`: API Gateway's own JSON answers do; the front end's
   * refusals of a request too large to read (head, body) come before any request id.
   */
  requestId: boolean;
}

const message = (status: number, text: string): GatewayAnswer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify({ message: text }),
  requestId: true,
});

/**
 * What API Gateway answers, in its shape (never the service's error shape).
 * - `headTooLarge`, `bodyTooLarge`: the front end's own plain-text refusals. A body over 10 MB is answered
 *   `413`, `content-type: text; charset=utf-8`, `HTTP content length exceeded 10485760 bytes.`
 *   (observed: https://github.com/koki-develop/lgtm-generator/issues/10); headers over the quota get
 *   `HTTP header is larger than 10240 bytes.`
 *   (https://ntsblog.homedev.com.au/index.php/2021/03/09/aws-api-gateway-http-header-is-larger-than-10240-bytes/),
 *   both messages of the same family of the front end's parser errors: the status of the second is not
 *   published, and the emulation gives it the 413 observed for the first.
 * - `eventTooLarge`: Lambda refused the invocation (RequestEntityTooLargeException): 413, in the JSON shape
 *   HTTP APIs answer with the reason phrase as message (a REST API words it `Request Too Long`, same issue
 *   as above).
 * - `functionFailed`: the function failed, or its answer was over 6 MB or malformed: 500
 *   `{"message":"Internal Server Error"}`
 *   (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html).
 * - `timedOut`: no answer within the integration timeout: 503 `{"message":"Service Unavailable"}` with
 *   `apigw-requestid` (observed: https://github.com/cortexlabs/cortex/issues/1225).
 */
export const GATEWAY_ANSWERS = {
  headTooLarge: { status: 413, contentType: 'text; charset=utf-8', body: `HTTP header is larger than ${HEAD_MAX_BYTES} bytes.`, requestId: false },
  bodyTooLarge: { status: 413, contentType: 'text; charset=utf-8', body: `HTTP content length exceeded ${BODY_MAX_BYTES} bytes.`, requestId: false },
  eventTooLarge: message(413, 'Request Entity Too Large'),
  functionFailed: message(500, 'Internal Server Error'),
  timedOut: message(503, 'Service Unavailable'),
} satisfies Record<string, GatewayAnswer>;

/** The size the head quota counts: the request line and every header line, without line ends. */
export function headBytes(req: IncomingMessage): number {
  // Node keeps the request target and header values as latin1 strings: one character per byte.
  let n = `${req.method} ${req.url} HTTP/${req.httpVersion}`.length;
  for (let i = 0; i < req.rawHeaders.length; i += 2) n += req.rawHeaders[i]!.length + 2 + req.rawHeaders[i + 1]!.length;
  return n;
}

/** The size of a payload as Lambda counts it: its JSON, in bytes. */
export const jsonBytes = (payload: unknown) => Buffer.byteLength(JSON.stringify(payload ?? null));
