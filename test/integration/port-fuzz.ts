import fc from 'fast-check';
import type { RuntimeInfo } from '../../infra/local/runtime-info';
import { rawBytes } from './raw-http';

/**
 * Every port the local stack opens to clients, found from its runtime file, with the paths its server
 * serves (hostile requests aim at them and around them) and a harmless request it must still answer.
 */
export interface LocalPort {
  name: string;
  port: number;
  /** Paths of the server's own, to aim at. */
  paths: string[];
  /** A request the server answers below 500 when it is well. */
  probe: Buffer;
}

const portOf = (url: string) => Number(new URL(url).port);
const get = (path: string, headers: [string, string][] = []) => rawBytes(`GET ${path} HTTP/1.1`, [['Host', '127.0.0.1'], ...headers]);
const post = (path: string, headers: [string, string][], body: string) =>
  rawBytes(`POST ${path} HTTP/1.1`, [['Host', '127.0.0.1'], ...headers, ['Content-Length', String(Buffer.byteLength(body))]], body);

export function localPorts(runtime: RuntimeInfo): LocalPort[] {
  const env = runtime.env;
  const queue = new URL(env.WEBHOOK_QUEUE_URL!).pathname;
  const pool = env.USER_POOL_ID!;
  return [
    { name: 'api', port: runtime.port, paths: ['/v1/health', '/v1/quotes', '/v1/adventures/x', '/v1/docs', '/cognito/'], probe: get('/v1/health') },
    {
      name: 'console',
      port: portOf(runtime.consoleUrl),
      paths: ['/console/', '/console/config.json', '/console/assets/x.js', '/'],
      probe: get('/console/config.json'),
    },
    {
      name: 'cognito',
      port: portOf(env.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER!),
      paths: ['/cognito/', `/cognito/${pool}/.well-known/jwks.json`],
      probe: get(`/cognito/${pool}/.well-known/jwks.json`),
    },
    {
      name: 's3',
      port: portOf(env.AWS_ENDPOINT_URL_S3!),
      paths: [`/${env.SETTLEMENT_BUCKET}/`, `/${env.PHOTO_BUCKET}/uploads/x.jpg`, `/${env.SETTLEMENT_BUCKET}/a/b?uploads`, '/'],
      probe: get(`/${env.PHOTO_BUCKET}/none.jpg`),
    },
    {
      name: 'sqs',
      port: portOf(env.AWS_ENDPOINT_URL_SQS!),
      paths: ['/', queue, `${queue}-dlq`],
      probe: post(
        '/',
        [
          ['Content-Type', 'application/x-amz-json-1.0'],
          ['X-Amz-Target', 'AmazonSQS.ListQueues'],
        ],
        '{}',
      ),
    },
    {
      name: 'ses',
      port: portOf(env.AWS_ENDPOINT_URL_SESV2!),
      paths: ['/v2/email/outbound-emails', '/v2/email/account'],
      probe: get('/v2/email/account'),
    },
    { name: 'scheduler', port: portOf(env.AWS_ENDPOINT_URL_SCHEDULER!), paths: ['/schedules', '/schedules/x'], probe: get('/schedules') },
    {
      // The layer in front of DynamoDB Local (infra/local/gsi-lag.ts) when the stack runs with an index lag, else DynamoDB Local.
      name: 'dynamodb',
      port: portOf(env.AWS_ENDPOINT_URL_DYNAMODB!),
      paths: ['/'],
      probe: post(
        '/',
        [
          ['Content-Type', 'application/x-amz-json-1.0'],
          ['X-Amz-Target', 'DynamoDB_20120810.ListTables'],
        ],
        '{}',
      ),
    },
  ];
}

/** Percent-encodings that do not decode, or decode to what a path should never hold. */
const BAD_ESCAPES = ['%', '%z', '%zz', '%E0%A4%A', '%ff', '%C0%AF', '%00', '%2e%2e%2f', '%%', '%u0041', '%F0%9F%98'];

const segment = fc.oneof(
  fc.constantFrom(...BAD_ESCAPES),
  fc.constantFrom('..', '.', '', '~', '*', 'a'.repeat(1100), 'é', 'index.html', 'config.json', 'x?y=%', '#frag'),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }).map(encodeURIComponent),
);

/** A request target: around the port's own paths, with junk segments, odd forms and odd queries. */
const target = (paths: string[]) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), fc.array(segment, { minLength: 1, maxLength: 3 }))
        .map(([p, s]) => `${p.replace(/\/?$/, '/')}${s.join('/')}`),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), fc.constantFrom('?%=%', '?a=%E0%A4%A', '?&&=&', '?x=1&x=2', `?${'q'.repeat(4000)}`, '?\u00ff'))
        .map(([p, q]) => p + q),
    },
    { weight: 1, arbitrary: fc.constantFrom('*', 'http://[::1', 'http://evil.example/', '//', `/${'a'.repeat(9000)}`, '/\u00e9\u00ff', '/./../../etc/passwd') },
  );

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'CONNECT', 'PROPFIND', 'SEARCH', 'get', 'FOO', 'M-SEARCH'];

/** `Name: value` lines as header pairs (a value may hold a colon). */
const lines = (...ls: string[]) => ls.map((l): [string, string] => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]);

/** Header lines a client should never send: repeated, contradictory, invalid, huge. */
const oddHeaders = fc.constantFrom<[string, string][]>(
  [],
  lines('Host: a', 'Host: b'),
  lines('Content-Type: application/json', 'Content-Type: text/plain'),
  lines('Content-Type: \u00ff\u00fe;;;charset='),
  lines('X-Amz-Target: AmazonSQS.%E0%A4%A'),
  lines('Content-Type: application/x-amz-json-1.0'),
  lines('Content-Type: application/x-amz-json-1.0', 'X-Amz-Target: AmazonSQS.SendMessage'),
  lines('Content-Type: application/x-amz-json-1.1', 'X-Amz-Target: AWSCognitoIdentityProviderService.AdminCreateUser'),
  lines('X-Amz-Target: DynamoDB_20120810.Query'),
  lines('X-Amz-Target: AWSCognitoIdentityProviderService.InitiateAuth'),
  lines('X-Amz-Target: .'),
  lines('Authorization: AWS4-HMAC-SHA256 Credential=%E0/x, SignedHeaders=, Signature=zz'),
  lines(`Authorization: Bearer ${'x'.repeat(8000)}`),
  lines(`X-Big: ${'a'.repeat(70_000)}`),
  Array.from({ length: 300 }, (_, i): [string, string] => [`X-Many-${i}`, String(i)]),
  lines('Origin: null', 'Access-Control-Request-Method: PROPFIND'),
  lines('Expect: 100-continue'),
  lines('Upgrade: websocket', 'Connection: Upgrade'),
  lines('Cookie: %E0%A4%A=%; ;;='),
  lines('Range: bytes=9-1,%'),
  lines('If-Modified-Since: yesterday'),
  lines('Content-Encoding: gzip'),
  lines('x-amz-checksum-crc32: %%%', 'x-amz-sdk-checksum-algorithm: MD4'),
);

/** A body and how it is framed: declared honestly, declared twice, declared longer than sent, or chunked badly. */
const framing = fc.oneof(
  fc
    .constantFrom('', '{}', 'null', '[]', '{"a":', '"x"', '{"Records":null}', '{"__proto__":{"x":1}}', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[')
    .map((body) => ({ kind: 'sized' as const, body })),
  fc.nat({ max: 20_000 }).map((n) => ({ kind: 'sized' as const, body: `${'['.repeat(n)}${']'.repeat(n)}` })),
  fc.constantFrom('Action=SendMessage&QueueUrl=%E0%A4%A&MessageBody=%', 'Action=%&Version=2012-11-05').map((body) => ({ kind: 'sized' as const, body })),
  fc.constant({ kind: 'truncated' as const, body: '{"TableName":"x"' }),
  fc.constant({ kind: 'double-length' as const, body: '{}' }),
  fc.constant({ kind: 'bad-chunk' as const, body: 'zz\r\n{}\r\n0\r\n\r\n' }),
  fc.constant({ kind: 'length-and-chunked' as const, body: '2\r\n{}\r\n0\r\n\r\n' }),
);

export interface HostileRequest {
  bytes: Buffer;
  /**
   * The client goes away once it has sent: its body is shorter than it declared, or cannot be delimited (a bad
   * chunk after an Upgrade, which Node's parser leaves to an 'upgrade' listener): no answer to wait for.
   */
  leaves: boolean;
  /** What it is, for a failure's message. */
  label: string;
}

/** A hostile request to `port`: malformed paths and percent-encodings, odd methods and versions, bad headers and framings. */
export const hostileRequest = (port: LocalPort) =>
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      target: target(port.paths),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9'),
      headers: oddHeaders,
      framing,
    })
    .map((r): HostileRequest => {
      const headers: [string, string][] = [['Host', '127.0.0.1'], ...r.headers];
      const body = Buffer.from(r.framing.body, 'utf8');
      if (r.framing.kind === 'sized' || r.framing.kind === 'truncated')
        headers.push(['Content-Length', String(body.length + (r.framing.kind === 'truncated' ? 100 : 0))]);
      if (r.framing.kind === 'double-length') headers.push(['Content-Length', '2'], ['Content-Length', '7']);
      if (r.framing.kind === 'bad-chunk') headers.push(['Transfer-Encoding', 'chunked']);
      if (r.framing.kind === 'length-and-chunked') headers.push(['Content-Length', '3'], ['Transfer-Encoding', 'chunked']);
      const line = `${r.method} ${r.target} ${r.version}`;
      return {
        bytes: rawBytes(line, headers, body),
        leaves: r.framing.kind === 'truncated' || (r.framing.kind === 'bad-chunk' && r.headers.some(([k]) => k === 'Upgrade')),
        label: `${line.slice(0, 120)} [${r.headers
          .map(([k]) => k)
          .slice(0, 4)
          .join(', ')}${r.headers.length > 4 ? ', ...' : ''}] ${r.framing.kind} body of ${body.length} bytes`,
      };
    });

const sqsJson = (target: [string, string][], body: string) => post('/', [['Content-Type', 'application/x-amz-json-1.0'], ...target], body);

/**
 * What the fuzzing of issue 40 found, each sent to every port: the first five and the absolute-form `http://[::1` ended the whole stack (an uncaught
 * error or an unhandled rejection in its one process), the others answered 500 or dropped the connection.
 */
export const KNOWN_CRASHERS: HostileRequest[] = [
  { label: 'GET /console/%E0%A4%A (the console: URIError, the stack exited)', bytes: get('/console/%E0%A4%A'), leaves: false },
  { label: 'GET /schedules/%E0%A4%A (the Scheduler: URIError, the stack exited)', bytes: get('/schedules/%E0%A4%A'), leaves: false },
  {
    label: 'POST /schedules/x, body null (the Scheduler: TypeError, the stack exited)',
    bytes: post('/schedules/x', [['Content-Type', 'application/json']], 'null'),
    leaves: false,
  },
  {
    label: 'POST / of the SQS JSON protocol without X-Amz-Target (local-aws-sqs: unhandled rejection, the stack exited)',
    bytes: sqsJson([], '{}'),
    leaves: false,
  },
  {
    label: 'POST / SendMessage, body null (local-aws-sqs: unhandled rejection, the stack exited)',
    bytes: sqsJson([['X-Amz-Target', 'AmazonSQS.SendMessage']], 'null'),
    leaves: false,
  },
  {
    label: 'CONNECT 127.0.0.1:1 (every server dropped the connection unanswered)',
    bytes: rawBytes('CONNECT 127.0.0.1:1 HTTP/1.1', [['Host', '127.0.0.1:1']]),
    leaves: false,
  },
  { label: 'GET http://[::1 (the Scheduler: TypeError Invalid URL, the stack exited; s3rver: 500)', bytes: get('http://[::1'), leaves: false },
  { label: 'GET /%00 (s3rver: 500)', bytes: get('/%00'), leaves: false },
  { label: `GET /${'a'.repeat(300)} (s3rver: 500, a name too long for its filesystem)`, bytes: get(`/${'a'.repeat(300)}`), leaves: false },
  {
    label: 'POST / Query with malformed JSON (the DynamoDB layer: 500)',
    bytes: post(
      '/',
      [
        ['Content-Type', 'application/x-amz-json-1.0'],
        ['X-Amz-Target', 'DynamoDB_20120810.Query'],
      ],
      '{"TableName":',
    ),
    leaves: false,
  },
  {
    label: 'HEAD /x with a body (the DynamoDB layer: 500, DynamoDB Local answered a HEAD with a body)',
    bytes: rawBytes(
      'HEAD /x HTTP/1.1',
      [
        ['Host', '127.0.0.1'],
        ['Content-Length', '2'],
      ],
      '{}',
    ),
    leaves: false,
  },
  {
    label: 'POST / with a Bearer Authorization (DynamoDB Local: 500 InternalFailure)',
    bytes: post(
      '/',
      [
        ['Authorization', 'Bearer x'],
        ['X-Amz-Target', 'DynamoDB_20120810.ListTables'],
      ],
      '{}',
    ),
    leaves: false,
  },
  {
    label: 'POST /cognito/ InitiateAuth, body null (the Cognito layer: 500)',
    bytes: post('/cognito/', [['X-Amz-Target', 'AWSCognitoIdentityProviderService.InitiateAuth']], 'null'),
    leaves: false,
  },
  {
    label: 'POST /v2/email/outbound-emails, body null (the SES emulation: 500)',
    bytes: post('/v2/email/outbound-emails', [['Content-Type', 'application/json']], 'null'),
    leaves: false,
  },
];
