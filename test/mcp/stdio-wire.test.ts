// The stdio framing: every line is answered or handed on, and the server never ends because of
// what a client wrote (a line over the limit, text that is not JSON, an id of the wrong type, a
// request before initialize).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdioWire } from '../../src/mcp/stdio-wire.js';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

function wire(maxBytes = 1024) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const notes: string[] = [];
  const received: Record<string, unknown>[] = [];
  let closed = false;
  const w = new StdioWire(stdin, stdout, {
    maxBytes,
    note: (line) => notes.push(line),
    parse: (value) => {
      if ((value as { jsonrpc?: unknown }).jsonrpc !== '2.0') throw new Error('not JSON-RPC 2.0');
      return value;
    },
    versionKey: VERSION_KEY,
  });
  w.onmessage = (message) => received.push(message);
  w.onclose = () => (closed = true);
  void w.start();
  const answers = () =>
    (stdout.read()?.toString('utf8') ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l: string) => JSON.parse(l));
  return { stdin, notes, received, answers, closed: () => closed, wire: w };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('the stdio framing of tally mcp', () => {
  it('refuses a line over the limit as it streams in, says why on stderr, and serves the next message', async () => {
    const w = wire(1024);
    w.stdin.write(`${JSON.stringify(initialize)}\n`);
    w.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_usage","arguments":{"since":"${'x'.repeat(700)}`);
    w.stdin.write(`${'y'.repeat(900)}"}}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n`);
    await tick();
    expect(w.answers()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'the message is longer than 1024 bytes; it was not read' } }]);
    expect(w.notes).toEqual(['tally mcp: a message of 1701 bytes was refused: messages are read up to 1024 bytes; the server goes on']);
    expect(w.received.map((m) => m.id)).toEqual([1, 3]);
    expect(w.closed()).toBe(false);
  });

  it('answers text that is not JSON with a parse error, and a request id of a type JSON-RPC does not allow with id null', async () => {
    const w = wire();
    w.stdin.write(`${JSON.stringify(initialize)}\n{not json\n`);
    for (const id of [null, true, { a: 1 }, [1], 1.5]) w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
    w.stdin.write(`${JSON.stringify({ jsonrpc: '1.0', id: 9, method: 'ping' })}\n[1,2]\n\n`);
    await tick();
    const answers = w.answers();
    expect(answers[0]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(answers.slice(1, 6)).toEqual(Array.from({ length: 5 }, () => ({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a request id is a string or an integer' } })));
    expect(answers[6]).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } });
    expect(answers[7]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(answers).toHaveLength(8);
    expect(w.received.map((m) => m.method)).toEqual(['initialize']);
  });

  it('refuses requests before initialize (but ping, notifications and 2026-era requests that carry their version)', async () => {
    const w = wire();
    w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`);
    w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_status' } })}\n`);
    w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`);
    w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })}\n`);
    await tick();
    expect(w.answers()).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Server not initialized: send initialize before tools/list' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'Server not initialized: send initialize before tools/call' } },
    ]);
    expect(w.received.map((m) => m.method)).toEqual(['ping', 'notifications/cancelled']);
    w.stdin.write(`${JSON.stringify(initialize)}\n${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' })}\n`);
    await tick();
    expect(w.received.map((m) => m.id)).toEqual([3, undefined, 1, 4]);

    const modern = wire();
    modern.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { _meta: { [VERSION_KEY]: '2026-07-28' } } })}\n`);
    await tick();
    expect(modern.answers()).toEqual([]);
    expect(modern.received.map((m) => m.id)).toEqual(['a']);
  });

  it('closes when stdin ends', async () => {
    const w = wire();
    w.stdin.end();
    await tick();
    await tick();
    expect(w.closed()).toBe(true);
  });

  it('answers every request read before stdin ended, then closes (a cancelled one is not waited for)', async () => {
    const w = wire();
    const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_status', arguments: {} } });
    w.stdin.write(`${[initialize, call(2), call('three'), call(4)].map((m) => JSON.stringify(m)).join('\n')}\n`);
    await tick();
    await w.wire.send({ jsonrpc: '2.0', id: 1, result: {} });
    w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } })}\n`);
    w.stdin.end();
    await tick();
    await tick();
    expect(w.closed()).toBe(false);
    await w.wire.send({ jsonrpc: '2.0', id: 'three', result: {} });
    expect(w.closed()).toBe(false);
    // A notification the server sends is no answer.
    await w.wire.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(w.closed()).toBe(false);
    await w.wire.send({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'x' } });
    expect(w.closed()).toBe(true);
    await w.wire.done;
    expect(w.answers().map((a: { id?: unknown }) => a.id)).toEqual([1, 'three', undefined, 2]);
  });
});
