// A TCP relay that puts a round-trip time in front of a server on this machine, for measuring
// round trips (npm run bench with BENCH_NETWORK=1). Every byte waits half the round trip each
// way, and a new connection's first bytes wait one more round trip, as a TCP handshake would
// cost on a real link (the relay's own handshake is local and free). Order is kept: a chunk
// never overtakes the one before it. It listens on 127.0.0.1 only and counts connections.
import { connect, createServer } from 'node:net';

/**
 * Starts the relay in front of `target` ({ host, port }); `rttMs` is the round-trip time.
 * Returns { port, connections: () => number, lateness: () => ms, close() }.
 */
export function startRelay(target, rttMs = 100) {
  let connections = 0;
  const sockets = new Set();
  const late = { ms: 0, chunks: 0 };
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
    pipeWithDelay(client, upstream, rttMs / 2, rttMs, late);
    pipeWithDelay(upstream, client, rttMs / 2, 0, late);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        connections: () => connections,
        /** The mean time a chunk waited past its due time (timers fire late): each way of a round trip adds it. */
        lateness: () => (late.chunks ? late.ms / late.chunks : 0),
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(done);
          }),
      });
    });
  });
}

/**
 * Forwards `from` to `to`, each chunk `delayMs` later, the first `firstExtraMs` later still. One
 * queue and one timer per direction: timers set for the same instant by different delays may
 * fire in either order, and a TLS stream whose records swap is broken (bad record mac).
 */
function pipeWithDelay(from, to, delayMs, firstExtraMs, late) {
  const queue = [];
  let first = true;
  let timer;
  let ended = false;
  const drain = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length && queue[0].due <= now) {
      const { chunk, due } = queue.shift();
      // How much later than asked the timer let the chunk go: the link's real delay is this much longer.
      late.ms += now - due;
      late.chunks++;
      if (to.writable) to.write(chunk);
    }
    if (queue.length) timer = setTimeout(drain, Math.max(0, queue[0].due - now));
    else if (ended) to.end();
  };
  from.on('data', (chunk) => {
    queue.push({ chunk, due: performance.now() + delayMs + (first ? firstExtraMs : 0) });
    first = false;
    timer ??= setTimeout(drain, Math.max(0, queue[0].due - performance.now()));
  });
  from.on('end', () => {
    ended = true;
    if (!queue.length && timer === undefined) to.end();
  });
}
