import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { jsonObject, percentDecoded, refuseTunnels } from './http-guard';
import { runAs } from './iam/principal';
import { closeServer } from './services';

interface StoredSchedule {
  Name: string;
  GroupName: string;
  dueAt: number;
  Target: { Arn: string; Input?: string; RoleArn?: string };
  ActionAfterCompletion: string;
  State: 'ENABLED' | 'DISABLED';
  CreationDate: string;
}

/** `at(yyyy-mm-ddThh:mm:ss)` in the schedule's time zone; the emulation supports UTC only. */
export function parseAt(expr: string, tz = 'UTC'): number | undefined {
  const m = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expr ?? '');
  if (!m || (tz !== 'UTC' && tz !== 'Etc/UTC')) return undefined;
  const t = Date.parse(`${m[1]}Z`);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * When a schedule due at `dueAt` fires: at the start of its minute. AWS's Scheduler invokes a target with 60 second
 * precision, between 1:00:00 and 1:00:59 for 1:00 ("Schedule types", EventBridge Scheduler user guide), so up to
 * 59 s before a time with seconds; the emulation fires as early as AWS may, so that nothing relies on the seconds.
 */
export const firesAt = (dueAt: number) => Math.floor(dueAt / 60_000) * 60_000;

/**
 * EventBridge Scheduler, emulated for one-time schedules that target SQS:
 * serves the REST-JSON API the SDK speaks (Create/Get/Delete/ListSchedules),
 * persists schedules under .local/, and in the minute of the due time
 * (firesAt) sends the target's Input to the queue, then deletes the schedule
 * when asked to. As in AWS, a schedule belongs to a group that exists:
 * `default` or one of `groups` (the stack's); any other is refused with
 * ResourceNotFoundException.
 */
export async function startScheduler(opts: {
  port: number;
  file: string;
  groups: string[];
  sqs: SQSClient;
  queueUrlForArn: (arn: string) => string | undefined;
  log: (line: string) => void;
}): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const schedules = new Map<string, StoredSchedule>();
  if (existsSync(opts.file)) {
    for (const s of JSON.parse(readFileSync(opts.file, 'utf8')) as StoredSchedule[]) schedules.set(`${s.GroupName}/${s.Name}`, s);
  }
  const persist = () => {
    writeFileSync(`${opts.file}.tmp`, JSON.stringify([...schedules.values()]));
    renameSync(`${opts.file}.tmp`, opts.file);
  };
  const fail = (res: import('node:http').ServerResponse, status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
    res.end(JSON.stringify({ Message: message }));
  };

  const serve = (req: IncomingMessage, res: ServerResponse, chunks: Buffer[]) => {
    const url = URL.canParse(req.url ?? '/', 'http://x') ? new URL(req.url ?? '/', 'http://x') : undefined;
    const m = url && /^\/schedules(?:\/([^/]+))?$/.exec(url.pathname);
    if (!url || !m) return fail(res, 404, 'ResourceNotFoundException', `unsupported path ${url?.pathname ?? req.url}`);
    const name = m[1] ? percentDecoded(m[1]) : undefined;
    if (name === null) return fail(res, 400, 'ValidationException', 'The schedule name is not valid percent-encoded UTF-8.');
    // The REST-JSON protocol's body is a JSON object (none for a GET or DELETE); anything else is refused as Scheduler does.
    const body = chunks.length ? jsonObject(Buffer.concat(chunks).toString('utf8')) : {};
    if (!body) return fail(res, 400, 'ValidationException', 'The request body is not a JSON object.');
    const group = (name ? ((body.GroupName as string) ?? url.searchParams.get('groupName')) : url.searchParams.get('GroupName')) ?? 'default';
    if (group !== 'default' && !opts.groups.includes(group)) return fail(res, 404, 'ResourceNotFoundException', `Schedule group ${group} does not exist.`);
    const key = `${group}/${name}`;
    if (req.method === 'POST' && name) {
      if (schedules.has(key)) return fail(res, 409, 'ConflictException', `Schedule ${name} already exists.`);
      const dueAt = parseAt(body.ScheduleExpression as string, (body.ScheduleExpressionTimezone as string) ?? 'UTC');
      if (dueAt === undefined) return fail(res, 400, 'ValidationException', 'Only at(...) one-time schedules in UTC are emulated locally.');
      const target = body.Target as StoredSchedule['Target'];
      if (!target?.Arn || !opts.queueUrlForArn(target.Arn)) return fail(res, 400, 'ValidationException', `Target ${target?.Arn} is not a local queue.`);
      if (!target.RoleArn) return fail(res, 400, 'ValidationException', 'Target.RoleArn is required: the schedule sends as that role.');
      schedules.set(key, {
        Name: name,
        GroupName: group,
        dueAt,
        Target: { Arn: target.Arn, Input: target.Input, RoleArn: target.RoleArn },
        ActionAfterCompletion: (body.ActionAfterCompletion as string) ?? 'NONE',
        State: (body.State as 'ENABLED' | 'DISABLED') ?? 'ENABLED',
        CreationDate: new Date().toISOString(),
      });
      persist();
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ ScheduleArn: `arn:aws:scheduler:us-east-1:123456789012:schedule/${group}/${name}` }));
    }
    if (req.method === 'GET' && name) {
      const s = schedules.get(key);
      if (!s) return fail(res, 404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          Name: s.Name,
          GroupName: s.GroupName,
          State: s.State,
          ScheduleExpression: `at(${new Date(s.dueAt).toISOString().slice(0, 19)})`,
          Target: s.Target,
          ActionAfterCompletion: s.ActionAfterCompletion,
        }),
      );
    }
    if (req.method === 'DELETE' && name) {
      if (!schedules.delete(key)) return fail(res, 404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
      persist();
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (req.method === 'GET' && !name) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ Schedules: [...schedules.values()].map((s) => ({ Name: s.Name, GroupName: s.GroupName, State: s.State })) }));
    }
    return fail(res, 405, 'ValidationException', `unsupported ${req.method}`);
  };
  const server: Server = refuseTunnels(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // Nothing a request sends may take the stack down: an unforeseen failure is this request's 500, as AWS's InternalServerException.
        try {
          serve(req, res, chunks);
        } catch (e) {
          opts.log(`[scheduler] ${req.method} ${req.url} failed: ${(e as Error).message}`);
          if (!res.headersSent) fail(res, 500, 'InternalServerException', 'The local Scheduler failed on this request.');
        }
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(opts.port, '127.0.0.1', resolve));

  let firing = false;
  const timer = setInterval(async () => {
    if (firing) return;
    firing = true;
    try {
      const now = Date.now();
      for (const [key, s] of schedules) {
        if (s.State !== 'ENABLED' || firesAt(s.dueAt) > now) continue;
        const url = opts.queueUrlForArn(s.Target.Arn);
        try {
          // As the role the schedule names (the execution role AWS's Scheduler assumes to reach its target).
          const role = `role:${(s.Target.RoleArn ?? '').split('/').pop()}`;
          await runAs(role, () => opts.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: s.Target.Input ?? '{}' })));
        } catch (e) {
          opts.log(`[scheduler] ${key} could not send: ${(e as Error).message}`);
          continue; // Scheduler retries delivery to the target
        }
        if (s.ActionAfterCompletion === 'DELETE') schedules.delete(key);
        else s.State = 'DISABLED';
        persist();
      }
    } finally {
      firing = false;
    }
  }, 200);

  return {
    endpoint: `http://127.0.0.1:${opts.port}`,
    stop: async () => {
      clearInterval(timer);
      await closeServer(server);
    },
  };
}
