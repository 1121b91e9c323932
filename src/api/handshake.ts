// A TLS handshake under the request's deadline.
import type { ConnectionOptions, TLSSocket } from 'node:tls';

/**
 * A TLS connection, every phase of it (TCP, the handshake) under `signal`: a server that accepts
 * and never finishes its handshake is left at the deadline, its socket destroyed, never waited on.
 */
export function handshake(tls: typeof import('node:tls'), options: ConnectionOptions, signal: AbortSignal): Promise<TLSSocket> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<TLSSocket>((resolve, reject) => {
    const socket = tls.connect(options);
    const abort = () => {
      socket.destroy();
      reject(signal.reason instanceof Error ? signal.reason : Object.assign(new Error('the TLS handshake did not finish before the deadline'), { name: 'AbortError' }));
    };
    signal.addEventListener('abort', abort, { once: true });
    socket.once('secureConnect', () => {
      signal.removeEventListener('abort', abort);
      resolve(socket);
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', abort);
      reject(error);
    });
  });
}
