import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stackRuntime } from './helpers';

/**
 * The local servers have no authentication: none may listen beyond this machine. Every listening TCP socket
 * of the stack's process and of its DynamoDB Local is bound to loopback. Read from /proc (Linux), as `ss -ltnp`
 * shows it: a socket's inode, found among the process's descriptors, in /proc/net/tcp and tcp6.
 */
function listeningAddresses(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[3] === '0A' && inodes.has(f[9]!))
      .map((f) => f[1]!),
  );
}

// 127.0.0.1 (/proc/net/tcp, little-endian), and ::1 or ::ffff:127.0.0.1 (/proc/net/tcp6, per 32-bit word).
const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000', '0000000000000000FFFF00000100007F']);

describe('the local stack listens on loopback only', () => {
  it('every listening socket of the stack and of DynamoDB Local is bound to 127.0.0.1 or ::1', () => {
    const runtime = stackRuntime();
    expect(runtime.javaPid).toEqual(expect.any(Number));
    for (const pid of [runtime.pid, runtime.javaPid!]) {
      const addresses = listeningAddresses(pid);
      expect(addresses.length, `pid ${pid} listens`).toBeGreaterThan(0);
      expect(
        addresses.filter((a) => !LOOPBACK.has(a.split(':')[0]!)),
        `pid ${pid}`,
      ).toEqual([]);
    }
  });
});
