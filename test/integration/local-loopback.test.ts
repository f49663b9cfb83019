import { describe, expect, it } from 'vitest';
import { stackRuntime } from './helpers';
import { listeningSockets } from './sockets';

/**
 * The local servers have no authentication: none may listen beyond this machine. Every listening TCP socket
 * of the stack's process and of its DynamoDB Local is bound to loopback.
 */
// 127.0.0.1 (/proc/net/tcp, little-endian), and ::1 or ::ffff:127.0.0.1 (/proc/net/tcp6, per 32-bit word).
const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000', '0000000000000000FFFF00000100007F']);

describe('the local stack listens on loopback only', () => {
  it('every listening socket of the stack and of DynamoDB Local is bound to 127.0.0.1 or ::1', () => {
    const runtime = stackRuntime();
    expect(runtime.javaPid).toEqual(expect.any(Number));
    for (const pid of [runtime.pid, runtime.javaPid!]) {
      const addresses = listeningSockets(pid).map((s) => s.address);
      expect(addresses.length, `pid ${pid} listens`).toBeGreaterThan(0);
      expect(
        addresses.filter((a) => !LOOPBACK.has(a)),
        `pid ${pid}`,
      ).toEqual([]);
    }
  });
});
