// A TCP relay that puts a round-trip time in front of a server on this machine, for measuring
// round trips (npm run bench with BENCH_NETWORK=1). Every byte waits half the round trip each
// way, and a new connection's first bytes wait one more round trip, as a TCP handshake would
// cost on a real link (the relay's own handshake is local and free). Order is kept: a chunk
// never overtakes the one before it. It listens on 127.0.0.1 only and counts connections.
import { connect, createServer } from 'node:net';

/**
 * Starts the relay in front of `target` ({ host, port }); `rttMs` is the round-trip time.
 * Returns { port, connections: () => number, close() }.
 */
export function startRelay(target, rttMs = 100) {
  let connections = 0;
  const sockets = new Set();
  const server = createServer((client) => {
    connections++;
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      // A wire, not an endpoint: no Nagle delay of its own (with the kernel's delayed ACK it held
      // back each small write after the first by ~40 ms, which a link does not do).
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    pipeWithDelay(client, upstream, rttMs / 2, rttMs);
    pipeWithDelay(upstream, client, rttMs / 2, 0);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        connections: () => connections,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(done);
          }),
      });
    });
  });
}

/** Forwards `from` to `to`, each chunk `delayMs` later, the first `firstExtraMs` later still. */
function pipeWithDelay(from, to, delayMs, firstExtraMs) {
  let last = 0;
  let first = true;
  const at = () => {
    const due = Math.max(last, Date.now() + delayMs + (first ? firstExtraMs : 0));
    first = false;
    last = due;
    return due - Date.now();
  };
  from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), at()));
  from.on('end', () => setTimeout(() => to.end(), Math.max(0, last - Date.now())));
}
