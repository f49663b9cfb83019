import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The listening TCP sockets of a process, as `ss -ltnp` shows them, read from /proc (Linux): a socket's inode,
 * found among the process's descriptors, in /proc/net/tcp and tcp6. `address` is /proc's hex form (127.0.0.1 is
 * 0100007F), `port` a number. None for a process that is gone.
 */
export function listeningSockets(pid: number): { address: string; port: number }[] {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return []; // gone
  }
  for (const fd of fds) {
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
      .map((f) => {
        const [address, port] = f[1]!.split(':');
        return { address: address!, port: Number.parseInt(port!, 16) };
      }),
  );
}
