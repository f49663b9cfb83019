import { connect } from 'node:net';

/**
 * HTTP/1.1 as bytes on a socket: what fetch and node:http refuse to send (malformed request lines,
 * invalid or duplicated headers, bodies shorter than they say), and what a server answered, if anything.
 */
export interface RawAnswer {
  /** The final status (after any 100 Continue); undefined when no final answer came back. */
  status?: number;
  /** The answer's head and the start of its body, for messages. */
  text: string;
  /** The server closed the connection, or the client did (truncated requests). */
  closed: boolean;
  timedOut: boolean;
}

/** The end of an answer's body, when the head says where it is. */
function complete(buf: Buffer, method: string): boolean {
  const text = buf.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const head = text.slice(0, end);
  if (/^HTTP\/1\.[01] 1\d\d/.test(head)) return complete(buf.subarray(end + 4), method);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (method === 'HEAD' || status === 204 || status === 304) return true;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return buf.length - end - 4 >= Number(length);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return text.endsWith('0\r\n\r\n');
  return false;
}

/**
 * Sends `bytes` on a new connection to 127.0.0.1:`port` and reads the answer. `truncated`: the client
 * goes away after sending (its body shorter than it declared), so no answer is expected.
 */
export function rawRequest(port: number, bytes: Buffer, opts: { truncated?: boolean; timeoutMs?: number } = {}): Promise<RawAnswer> {
  const method = bytes.subarray(0, 16).toString('latin1').split(' ')[0] ?? '';
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    let settled = false;
    const finish = (timedOut: boolean, closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const text = got.toString('latin1');
      // The final answer's status: an interim 100 Continue is no answer.
      const status = [...text.matchAll(/^HTTP\/1\.[01] (\d{3})/gm)].map((m) => Number(m[1])).find((s) => s >= 200);
      resolve({ status, text: text.slice(0, 600), closed, timedOut });
    };
    const timer = setTimeout(() => finish(true, false), opts.timeoutMs ?? 5_000);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (complete(got, method)) finish(false, false);
    });
    socket.on('error', () => finish(false, true));
    socket.on('close', () => finish(false, true));
    socket.write(bytes, () => {
      // A client that goes away mid-body: the server must let the request go.
      if (opts.truncated) setTimeout(() => finish(false, true), 50);
    });
  });
}

/** A request as bytes: the request line, the headers in order (repeats allowed), the body. */
export function rawBytes(requestLine: string, headers: [string, string][], body: Buffer | string = ''): Buffer {
  const head = `${requestLine}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')]);
}
