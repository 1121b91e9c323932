// Long exports that never dead-end: logs --all paces itself to the gateway's rate limit (waiting
// for its window to reopen), and when it still cannot finish it keeps what it fetched, prints the
// cursor to resume from, and --resume continues there.
import { afterEach, describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/errors.js';
import { type HostileGateway, againstHostile } from '../adversarial/hostile-gateway.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const gateways: HostileGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

const entry = (i: number) => `{"id": "c${i}", "created_at": ${Math.floor(NOW / 1000) - 60 * (i + 1)}, "cost": "0.01000000"}`;
/** Five pages of two entries, cursors 1..4; `blocked(cursor, count)` answers a 429 instead. */
function paged(blocked: (cursor: number, count: number) => boolean) {
  return againstHostile(
    {
      name: 'paged',
      routes: {
        '/v1/open/logs': ({ url, count }) => {
          const cursor = Number(url.searchParams.get('cursor') ?? '0');
          if (blocked(cursor, count)) return { status: 429, headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '-1' }, body: '{"error": {"message": "rate limit exceeded"}}' };
          const next = cursor < 4 ? `"${cursor + 1}"` : 'null';
          return { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': String(100 - count) }, body: `{"data": [${entry(2 * cursor)}, ${entry(2 * cursor + 1)}], "next_cursor": ${next}, "has_more": ${cursor < 4}}` };
        },
      },
    },
    NOW,
    gateways,
  );
}

describe('logs --all, a long export', () => {
  it('waits out a rate limit that holds for a while and finishes', async () => {
    // Page 3 is refused four times (the window has not reopened yet), then answered.
    const { run } = await paged((cursor, count) => cursor === 2 && count <= 6);
    const result = await run(['logs', '--all', '--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.records).toHaveLength(10);
    expect(doc.complete).toBe(true);
  });

  it('keeps what it fetched when it still cannot finish, prints the cursor, and --resume continues there', async () => {
    let open = false;
    const { run } = await paged((cursor) => cursor >= 3 && !open);
    const stopped = await run(['logs', '--all', '--json']);
    expect(stopped.code).toBe(4);
    const partial = JSON.parse(stopped.stdout);
    expect(partial.complete).toBe(false);
    expect(partial.records).toHaveLength(6);
    const cursor = /--resume (\S+)/.exec(stopped.stderr)![1]!;
    expect(stopped.stderr).toContain('the export stopped before page 4');
    const ndjson = await run(['logs', '--all', '--ndjson']);
    expect(ndjson.code).toBe(4);
    expect(ndjson.stdout.trim().split('\n')).toHaveLength(6);
    open = true;
    const resumed = await run(['logs', '--all', '--json', '--resume', cursor]);
    expect(resumed.code).toBe(0);
    const rest = JSON.parse(resumed.stdout);
    expect(rest.records.map((r: { id: string }) => r.id)).toEqual(['c6', 'c7', 'c8', 'c9']);
    expect(rest.complete).toBe(true);
    expect((await run(['logs', '--all', '--resume', 'not a cursor'])).code).toBe(2);
    expect((await run(['logs', '--resume', cursor])).code).toBe(2);
  });
});

describe('logs --all: every way a long export stops keeps what it fetched and prints the cursor', () => {
  it('at --max-pages: the pages so far (JSON complete: false; NDJSON the lines), the cursor, exit 1; --resume goes on', async () => {
    const { run } = await paged(() => false);
    const capped = await run(['logs', '--all', '--max-pages', '2', '--json']);
    expect(capped.code).toBe(1);
    const doc = JSON.parse(capped.stdout);
    expect(doc.complete).toBe(false);
    expect(doc.records.map((r: { id: string }) => r.id)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(capped.stderr).toMatch(/stopped after 2 pages \(--max-pages 2\).*continue with --all --resume \S+/);
    const lines = await run(['logs', '--all', '--max-pages', '2', '--ndjson']);
    expect(lines.stdout.trim().split('\n')).toHaveLength(4);
    const cursor = /--resume (\S+)/.exec(capped.stderr)![1]!;
    const rest = JSON.parse((await run(['logs', '--all', '--json', '--resume', cursor])).stdout);
    expect(rest.records.map((r: { id: string }) => r.id)).toEqual(['c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
  });

  it('on Ctrl-C: the document of what was fetched, the cursor, exit 130', async () => {
    const interrupt = new AbortController();
    // Ctrl-C while page 3 is being waited for (the gateway holds its rate limit).
    const { env } = await paged((cursor) => {
      if (cursor === 2) interrupt.abort(new Interrupted('interrupted'));
      return cursor >= 2;
    });
    const { runCommand } = await import('../helpers.js');
    const result = await runCommand(['logs', '--all', '--json'], { env, now: () => NOW, interrupt: interrupt.signal });
    expect(result.code, result.stderr).toBe(130);
    const doc = JSON.parse(result.stdout);
    expect(doc.complete).toBe(false);
    expect(doc.records).toHaveLength(4);
    expect(result.stderr).toMatch(/--resume \S+/);
  });

  it('at --timeout: the document of what was fetched, the cursor, and the cause (the built binary, a limit that does not reopen in time)', async () => {
    const { runTally } = await import('../helpers.js');
    const { gateway, env } = await againstHostile(
      {
        name: 'held',
        routes: {
          '/v1/open/logs': ({ url }) => {
            const cursor = Number(url.searchParams.get('cursor') ?? '0');
            if (cursor >= 2) return { status: 429, headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '-1', 'retry-after': '1' }, body: '{"error": {"message": "rate limit exceeded"}}' };
            return { body: `{"data": [${entry(2 * cursor)}, ${entry(2 * cursor + 1)}], "next_cursor": "${cursor + 1}", "has_more": true}` };
          },
        },
      },
      NOW,
      gateways,
    );
    void gateway;
    const result = await runTally(['logs', '--all', '--json', '--timeout', '2'], { env, now: NOW, timeoutMs: 15_000 });
    // Stopped within --timeout: timed out (1), or rate limited (4) once a wait would not end before it.
    expect([1, 4], result.stderr).toContain(result.code);
    const doc = JSON.parse(result.stdout);
    expect(doc.complete).toBe(false);
    expect(doc.records).toHaveLength(4);
    expect(result.stderr).toMatch(/continue with --all --resume \S+/);
  });
});

describe('export, a ledger asked period by period', () => {
  it('waits out a rate limit that holds for a while and writes every day', async () => {
    const day = 86_400;
    const today = Math.floor(NOW / 1000 / day) * day;
    const { run } = await againstHostile(
      {
        name: 'ledger',
        routes: {
          '/v1/open/usage': () => ({ body: `{"buckets": [{"t": ${today - day}, "cost": "0.02000000"}, {"t": ${today}, "cost": "0.01000000"}]}` }),
          // The first six asks are refused (the window has not reopened), then every day is answered.
          '/v1/open/usage/models': ({ url, count }) => {
            if (count <= 6) return { status: 429, headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '-1' }, body: '{"error": {"message": "rate limit exceeded"}}' };
            return { headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '50' }, body: `{"scope": "key", "models": [{"model": "m", "requests": 1, "cost": "0.01000000", "start": ${url.searchParams.get('start')}}]}` };
          },
        },
      },
      NOW,
      gateways,
    );
    const result = await run(['export', '--since', '3d', '--ndjson', '--utc-offset', '+00:00']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').map((l) => JSON.parse(l).date)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
  });
});
