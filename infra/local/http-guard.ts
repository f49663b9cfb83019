import type { Server } from 'node:http';

/**
 * What every server of the local stack shares so that no request can stop it (issue 40): the stack runs its
 * servers in one process, and a single throw outside a request's own error handling ended all of them.
 */

/** Percent-encoded text (a path, a segment), decoded; null when it is not valid percent-encoded UTF-8 (decodeURIComponent throws). */
export function percentDecoded(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

/**
 * A request body that is a JSON object, the only body the AWS JSON protocols take; undefined for anything else
 * (not JSON, or JSON null, a list, a string), which each emulation refuses as its service does.
 */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * CONNECT asks for a tunnel, which no server here (nor AWS's endpoints) offers. Node drops the socket without a
 * word when a server has no 'connect' listener, so a client sees its connection cut: the answer is a 405 instead.
 */
export function refuseTunnels<S extends Server>(server: S): S {
  server.on('connect', (_req, socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 32\r\nconnection: close\r\n\r\nCONNECT is not served here (405)',
    );
  });
  return server;
}
