// What every server tally runs (metrics --serve, the sandbox) does with requests it cannot use:
// a malformed request line, a target that is not a URL, huge headers, a client that sends
// nothing, a handler that fails. Each gets a status code and the server keeps serving.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The request's path and query, or undefined when its target is no URL (answered 400 by the caller). */
export function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/** A handler that never takes the server down: an error is a 500 (or the connection's end), never an exit. */
export function guarded(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>, onError?: (error: unknown) => void) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const fail = (error: unknown) => {
      onError?.(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal server error\n');
      else res.destroy();
    };
    try {
      const done = handler(req, res);
      if (done) done.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}

/** Requests Node's parser refuses (bad request lines, headers too large) get a status, and the server goes on. */
/** Resolves when a server should stop: Ctrl-C (`interrupt`), SIGTERM (systemd, Kubernetes), or what `more` arranges to call. */
export function untilStopped(interrupt: AbortSignal, more: (stop: () => void) => void = () => undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    if (interrupt.aborted) resolve();
    interrupt.addEventListener('abort', stop, { once: true });
    more(stop);
  });
}

export function hardenServer(server: Server, options: { headersTimeoutMs?: number } = {}): void {
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = 30_000;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });
}
