// Commands' flags as typed requests (each command's `parse`): pure functions of the flags, the
// words and the output the global flags chose, tested without a gateway or a context. Every flag
// that does not go with the others is refused here, before anything is asked.
import { describe, expect, it } from 'vitest';
import type { CommandLine } from '../../src/cli/command.js';
import * as anomalies from '../../src/commands/anomalies.js';
import * as exporting from '../../src/commands/export.js';
import * as forecast from '../../src/commands/forecast.js';
import * as logs from '../../src/commands/logs.js';
import * as usage from '../../src/commands/usage.js';
import * as audit from '../../src/commands/audit.js';
import * as authStatus from '../../src/commands/auth-status.js';
import * as authSwitch from '../../src/commands/auth-switch.js';
import * as balance from '../../src/commands/balance.js';
import * as billing from '../../src/commands/billing.js';
import * as budget from '../../src/commands/budget.js';
import * as check from '../../src/commands/check.js';
import * as completion from '../../src/commands/completion.js';
import * as config from '../../src/commands/config.js';
import * as demo from '../../src/commands/demo.js';
import * as doctor from '../../src/commands/doctor.js';
import * as guard from '../../src/commands/guard.js';
import * as login from '../../src/commands/login.js';
import * as logout from '../../src/commands/logout.js';
import * as mark from '../../src/commands/mark.js';
import * as mcp from '../../src/commands/mcp.js';
import * as metrics from '../../src/commands/metrics.js';
import * as models from '../../src/commands/models.js';
import * as notify from '../../src/commands/notify.js';
import * as pricing from '../../src/commands/pricing.js';
import * as report from '../../src/commands/report.js';
import * as run from '../../src/commands/run.js';
import * as sandbox from '../../src/commands/sandbox.js';
import * as schema from '../../src/commands/schema.js';
import * as status from '../../src/commands/status.js';
import * as statusline from '../../src/commands/statusline.js';
import * as version from '../../src/commands/version.js';
import * as whatif from '../../src/commands/whatif.js';
import { COMMANDS } from '../../src/cli/registry.js';

const line = (given: string[] = [], output: Partial<CommandLine['output']> = {}, args: string[] = []): CommandLine => ({ args, given: (name) => given.includes(name), output: { json: false, csv: false, jq: false, exact: false, wide: false, ...output }, profiles: false });

describe('forecast', () => {
  it('--days and --weeks as whole numbers in range; --weeks only with --backtest', () => {
    expect(forecast.parse({ days: '14', metric: 'fee' })).toEqual({ days: 14, metric: 'fee', utcOffset: undefined });
    expect(forecast.parse({ backtest: true })).toEqual({ days: undefined, metric: undefined, utcOffset: undefined, backtest: true, weeks: 8 });
    expect(forecast.parse({ backtest: true, weeks: '12' })).toMatchObject({ backtest: true, weeks: 12 });
    expect(() => forecast.parse({ weeks: '12' })).toThrow('--weeks goes with --backtest (tally forecast --backtest --weeks 12)');
    expect(() => forecast.parse({ days: '0' })).toThrow(/--days/);
    expect(() => forecast.parse({ backtest: true, weeks: '53' })).toThrow(/--weeks/);
  });
});

describe('anomalies', () => {
  it('the window, the bucket and the rule; a rule value out of range refused', () => {
    const request = anomalies.parse({ bucket: 'hour', since: '2d', minAmount: '5', deviations: '4' });
    expect(request).toMatchObject({ bucket: 'hour', since: '2d' });
    expect(request.rule?.minAmount?.toFixed()).toBe('5');
    expect(request.rule?.deviations).toBe(4);
    expect(() => anomalies.parse({ bucket: 'day', minAmount: 'lots' })).toThrow(/--min-amount/);
  });
});

describe('export', () => {
  it('its format flags against the one the global flags chose', () => {
    expect(exporting.parse({ bucket: 'day', header: true, ndjson: true, append: 'l.ndjson' }, line())).toMatchObject({ ndjson: true, append: 'l.ndjson' });
    expect(() => exporting.parse({ bucket: 'day', header: true, ndjson: true }, line([], { csv: true }))).toThrow('--ndjson and --csv each choose the format; give one of them');
    expect(() => exporting.parse({ bucket: 'day', header: true, append: 'l.csv' }, line())).toThrow("--append needs the file's format: --csv or --ndjson");
    expect(() => exporting.parse({ bucket: 'day', header: false }, line())).toThrow('--no-header goes with --csv');
    expect(exporting.parse({ bucket: 'hour', header: false, since: '2d' }, line([], { csv: true }))).toEqual({ bucket: 'hour', header: false, since: '2d', until: undefined, month: undefined, last: undefined, utcOffset: undefined, ndjson: undefined, append: undefined });
  });
});

describe('usage', () => {
  it('the series, a comparison or spend per model, each with only the flags that go with it', () => {
    expect(usage.parse({ bucket: 'day', since: '7d' }, line())).toMatchObject({ kind: 'series' });
    expect(usage.parse({ bucket: 'day', compare: 'previous', by: 'model' }, line())).toMatchObject({ kind: 'compare', byModel: true });
    // --bucket as a default is not asked for: per model over the window; given, one request per period.
    expect(usage.parse({ bucket: 'day', by: 'model' }, line())).toEqual({ kind: 'by-model', options: { bucket: undefined, since: undefined, until: undefined, month: undefined, last: undefined, utcOffset: undefined, param: undefined, all: undefined }, top: 5, topGiven: false });
    expect(usage.parse({ bucket: 'week', by: 'model', top: '3' }, line(['bucket']))).toMatchObject({ kind: 'by-model', options: { bucket: 'week' }, top: 3, topGiven: true });
  });

  it.each([
    [{ markdown: true }, [], {}, '--markdown goes with --compare (a comparison as a Markdown table)'],
    [{ compare: 'previous', watch: true }, [], {}, '--watch goes with the usage series, not --compare'],
    [{ compare: 'previous' }, ['bucket'], {}, '--compare sets whole windows side by side; --bucket does not apply (name the window with --since/--until, --month or --last)'],
    [{ compare: 'previous', markdown: true }, [], { json: true }, '--markdown and --json each print the whole result; choose one'],
    [{ compare: 'previous', param: ['k=v'] }, [], {}, '--param goes with --by model; /v1/open/usage takes bucket, start and end only'],
    [{ by: 'model', bucket: 'hour' }, ['bucket'], {}, '--by model works per day, week or month, not per hour (drop --bucket hour)'],
    [{ by: 'model', watch: '30' }, [], {}, '--watch goes with the usage series, not --by model (one request per period)'],
    [{ by: 'model', top: '3' }, [], {}, '--top goes with --bucket day|week|month (models as columns)'],
    [{ top: '3' }, [], {}, '--top goes with --by model; /v1/open/usage takes bucket, start and end only'],
    [{ metric: 'fee' }, [], {}, '--metric chooses what --chart draws; it goes with --chart'],
    [{ chart: true }, [], { csv: true }, '--chart draws for people; --csv prints the data (leave out --chart)'],
  ] as const)('%j (given %j, output %j): refused', (flags, given, output, message) => {
    // The table's rows as the parser would hand them (its lists are written as constants).
    expect(() => usage.parse({ bucket: 'day', ...(flags as Omit<Parameters<typeof usage.parse>[0], 'bucket'>) }, line([...given], output))).toThrow(message);
  });
});

describe('logs', () => {
  it('pages with --all (a page limit in range), or following with --follow (an interval in range); parameters passed through', () => {
    expect(logs.parse({ all: true, maxPages: '50', param: ['model=glm-4.6'] }, line())).toMatchObject({ kind: 'pages', maxPages: 50, query: { model: 'glm-4.6' } });
    expect(logs.parse({}, line())).toMatchObject({ kind: 'pages', maxPages: 1000, query: {} });
    expect(logs.parse({ follow: true, interval: '10' }, line())).toMatchObject({ kind: 'follow', interval: 10 });
  });

  it.each([
    [{ ndjson: true }, { json: true }, '--ndjson cannot be combined with --json or --csv'],
    [{ maxPages: '5' }, {}, '--max-pages goes with --all'],
    [{ resume: 'abc' }, {}, '--resume goes with --all (it continues an export that stopped)'],
    [{ interval: '5' }, {}, '--interval goes with --follow'],
    [{ follow: true, until: 'now' }, {}, '--until does not go with --follow (it prints calls as they land, NDJSON on a pipe or with --ndjson)'],
    [{ follow: true }, { csv: true }, '--csv does not go with --follow (it prints calls as they land, NDJSON on a pipe or with --ndjson)'],
    [{ follow: true, interval: '0' }, {}, /--interval/],
  ] as const)('%j (output %j): refused', (flags, output, message) => {
    expect(() => logs.parse({ ...flags }, line([], output))).toThrow(message);
  });
});

describe('balance and status', () => {
  it('once, or every --watch seconds (at least 10; not with --csv); status names its day grid', () => {
    expect(balance.parse({}, line())).toEqual({ watch: undefined });
    expect(balance.parse({ watch: true }, line())).toEqual({ watch: 60 });
    expect(status.parse({ watch: '15', utcOffset: '+08:00' }, line())).toEqual({ watch: 15, utcOffset: '+08:00' });
    expect(() => balance.parse({ watch: '5' }, line())).toThrow('--watch must be at least 10 seconds (got 5)');
    expect(() => status.parse({ watch: true }, line([], { csv: true }))).toThrow('--watch shows a table or JSON documents; it cannot be combined with --csv');
  });
});

describe('commands that take a word', () => {
  it('auth switch, schema, completion and config read their words', () => {
    expect(authSwitch.parse({}, line([], {}, ['work']))).toEqual({ name: 'work' });
    expect(schema.parse({}, line([], {}, ['check']))).toEqual({ name: 'check' });
    expect(schema.parse({}, line())).toEqual({ name: undefined });
    expect(() => schema.parse({}, line([], {}, ['nothing']))).toThrow('there is no schema "nothing"');
    expect(completion.parse({ name: 'tly' }, line([], {}, ['zsh']))).toEqual({ shell: 'zsh', name: 'tly' });
    expect(() => completion.parse({ name: 'a b' }, line([], {}, ['bash']))).toThrow('--name "a b" is not a command name');
    expect(() => completion.parse({ name: 'tally' }, line([], { json: true }, ['bash']))).toThrow('a completion script is shell code; --json and --csv do not apply');
    expect(config.get.parse({}, line([], {}, ['utc_offset']))).toEqual({ key: 'utc_offset' });
    expect(config.set.parse({}, line([], {}, ['utc_offset', '-05:00']))).toEqual({ key: 'utc_offset', value: '-05:00' });
    expect(() => config.unset.parse({}, line([], {}, ['api_key']))).toThrow('api_key is a secret: config never stores one');
    expect(() => config.get.parse({}, line([], {}, ['colour']))).toThrow('there is no setting "colour"');
    expect(config.list.parse({}, line())).toEqual({});
  });

  it('budget: set NAME with its amount and period, list, rm NAME, or names to show', () => {
    expect(budget.parse({ amount: '500', period: 'month' }, line([], {}, ['set', 'monthly']))).toEqual({ action: 'set', name: 'monthly', options: { amount: '500', period: 'month' } });
    expect(budget.parse({}, line([], {}, ['list']))).toEqual({ action: 'list' });
    expect(budget.parse({}, line([], {}, ['rm', 'monthly']))).toEqual({ action: 'rm', name: 'monthly' });
    expect(budget.parse({}, line([], {}, ['monthly', 'daily']))).toEqual({ action: 'show', names: ['monthly', 'daily'] });
    expect(budget.parse({}, line())).toEqual({ action: 'show', names: [] });
  });

  it.each([
    [{ amount: '5' }, ['monthly'], '--amount goes with `tally budget set NAME`'],
    [{ amount: '5', period: 'day' }, ['set'], '`tally budget set` takes one NAME'],
    [{ amount: '5' }, ['set', 'daily'], '`tally budget set` needs --amount and --period (day, week or month)'],
    [{ amount: '5', period: 'day' }, ['set', 'list'], '"list" is a word of `tally budget` itself; choose another name'],
    [{}, ['list', 'monthly'], '`tally budget list` takes no names'],
    [{}, ['rm'], '`tally budget rm` takes one NAME'],
    [{}, ['bad name'], 'budget name "bad name" must be'],
  ] as const)('budget %j %j: refused', (flags, words, message) => {
    expect(() => budget.parse({ ...flags }, line([], {}, [...words]))).toThrow(message);
  });

  it('notify: add NAME with a kind, list, rm NAME, test NAME', () => {
    expect(notify.parse({ kind: 'slack' }, line([], {}, ['add', 'team']))).toEqual({ action: 'add', name: 'team', kind: 'slack' });
    expect(notify.parse({}, line([], {}, ['list']))).toEqual({ action: 'list' });
    expect(notify.parse({}, line([], {}, ['test', 'team']))).toEqual({ action: 'test', name: 'team' });
    expect(() => notify.parse({}, line([], {}, ['add', 'team']))).toThrow('`tally notify add NAME` needs --kind webhook, slack, ntfy, feishu, dingtalk, wecom, discord, telegram, email');
    expect(() => notify.parse({ kind: 'ntfy' }, line([], {}, ['rm', 'team']))).toThrow('--kind goes with `tally notify add NAME`');
    expect(() => notify.parse({}, line([], {}, ['list', 'team']))).toThrow('`tally notify list` takes no NAME');
    expect(() => notify.parse({}, line([], {}, ['rm']))).toThrow('a destination NAME is needed (e.g. team)');
    expect(() => notify.parse({}, line([], {}, ['send', 'team']))).toThrow('`tally notify send`: the actions are add NAME, list, rm NAME and test NAME');
  });

  it('mark: the name (default run), a file named, --fail-open', () => {
    expect(mark.parse({}, line())).toEqual({ name: 'run', file: undefined, failOpen: false });
    expect(mark.parse({ file: '.tally-mark.json', failOpen: true }, line([], {}, ['eval']))).toEqual({ name: 'eval', file: '.tally-mark.json', failOpen: true });
    expect(() => mark.parse({}, line([], {}, ['../x']))).toThrow('mark name "../x" must be');
  });

  it('run: the command after --, the limits below one another, the scope and intervals in range', () => {
    const request = run.parse({ settle: '30', maxSpend: '5', warnSpend: '4.5', poll: '10', grace: '30', notify: ['team'] }, line([], {}, ['npm', 'test']));
    expect(request).toMatchObject({ program: 'npm', programArgs: ['test'], scope: undefined, poll: 10, grace: 30, failClosed: false, notify: ['team'], jsonSummary: undefined });
    expect([request.max.toFixed(), request.warn?.toFixed()]).toEqual(['5', '4.5']);
    expect(run.parse({ settle: '30', maxSpend: '2.50', scope: 'account', poll: '5', grace: '10' }, line([], {}, ['make']))).toMatchObject({ scope: 'account', programArgs: [] });
    expect(() => run.parse({ settle: '30', maxSpend: '5', warnSpend: '5', poll: '5', grace: '10' }, line([], {}, ['npm']))).toThrow('--warn-spend 5 is not below --max-spend 5: the warning would come with the stop');
    expect(() => run.parse({ settle: '30', maxSpend: '5', scope: 'acount', poll: '5', grace: '10' }, line([], {}, ['npm']))).toThrow('--scope "acount" is not key (this key\'s own spend) or account (every key\'s)');
    expect(() => run.parse({ settle: '30', maxSpend: '5', poll: '0', grace: '10' }, line([], {}, ['npm']))).toThrow(/--poll/);
    expect(() => run.parse({ settle: '30', maxSpend: '5', poll: '5', grace: '10' }, line())).toThrow('name the command to run after --: tally run --max-spend 5 -- npm test');
    expect(() => run.parse({ settle: '30', maxSpend: '5', poll: '5', grace: '10' }, line([], { jq: true }, ['npm']))).toThrow("stdout is the command's own under tally run");
  });
});

describe('commands with flags of their own', () => {
  it('billing, auth status, logout: each flag as a yes or no', () => {
    expect(billing.parse({ compare: true })).toEqual({ compare: true });
    expect(billing.parse({})).toEqual({ compare: false });
    expect(authStatus.parse({ offline: true })).toEqual({ offline: true });
    expect(logout.parse({})).toEqual({ forget: false });
  });

  it('login: a key (read, checked unless --no-verify) or the device flow, never both', () => {
    expect(login.parse({ withToken: true, verify: true })).toEqual({ device: false, withToken: true, verify: true });
    expect(login.parse({ verify: false })).toEqual({ device: false, withToken: false, verify: false });
    expect(login.parse({ device: true, open: true, clientId: 'ci', verify: true })).toEqual({ device: true, open: true, clientId: 'ci' });
    expect(() => login.parse({ device: true, withToken: true, verify: true })).toThrow('--with-token reads an API key; --device signs in with a device token instead: give one of them');
    expect(() => login.parse({ device: true, verify: false })).toThrow('--no-verify goes with an API key');
    expect(() => login.parse({ open: true, verify: true })).toThrow('--open goes with --device');
    expect(() => login.parse({ clientId: 'x', verify: true })).toThrow('--client-id goes with --device');
  });

  it('models: the catalog flags go with --prices; sorting by a price asks for the prices; the alt list has no context', () => {
    expect(models.parse({ format: 'native', sort: 'input', minContext: '200k' })).toEqual({ format: 'native', sort: 'input', prices: true, minContext: 200_000 });
    expect(models.parse({ format: 'alt' })).toEqual({ format: 'alt', prices: false, minContext: undefined });
    expect(() => models.parse({ format: 'native', refresh: true })).toThrow('--refresh is about the price catalog: it goes with --prices');
    expect(() => models.parse({ format: 'alt', reasoning: true })).toThrow("the alt format has neither (leave out --format alt)");
  });

  it('pricing: the --diff flags go with --diff, and the filters and order that do not apply to it are refused', () => {
    expect(pricing.parse({ sort: 'name', diff: true, since: '7d' }, line())).toMatchObject({ diff: true, since: '7d' });
    expect(() => pricing.parse({ sort: 'name', exitCode: true }, line())).toThrow('--exit-code goes with --diff');
    expect(() => pricing.parse({ sort: 'name', diff: true, against: 'v1', since: '7d' }, line())).toThrow('--against and --since each choose what --diff compares with; give one of them');
    expect(() => pricing.parse({ sort: 'name', diff: true }, line([], { csv: true }))).toThrow('--diff prints changes, not rows: use --json instead of --csv');
    expect(() => pricing.parse({ sort: 'name', diff: true, vendor: 'OpenAI' }, line())).toThrow('--vendor does not narrow --diff');
    expect(() => pricing.parse({ sort: 'input', diff: true }, line(['sort']))).toThrow('--diff lists changes by model name; --sort does not apply');
  });

  it('whatif: the swaps as pairs, at least one', () => {
    expect(whatif.parse({ swap: ['gpt-5=gpt-5-mini'], since: '7d' })).toEqual({ swaps: [['gpt-5', 'gpt-5-mini']], since: '7d', refresh: false, offline: false });
    expect(() => whatif.parse({})).toThrow('tally whatif needs --swap MODEL=OTHER');
    expect(() => whatif.parse({ swap: ['gpt-5'] })).toThrow('--swap "gpt-5" is not MODEL=OTHER');
  });

  it('audit: each --tolerance sets a share or an amount, the other keeps its default; --markdown apart from the data formats', () => {
    const request = audit.parse({ tolerance: ['1%'], since: '7d', fail: true }, line());
    expect([request.tolerance.percent.toFixed(), request.tolerance.amount.toFixed(), request.fail, request.since]).toEqual(['1', '0.0001', true, '7d']);
    expect(audit.parse({ tolerance: ['0.001', '2%'] }, line()).tolerance.amount.toFixed()).toBe('0.001');
    expect(() => audit.parse({ markdown: true }, line([], { csv: true }))).toThrow('--markdown prints the summary as Markdown; --json and --csv print the whole audit: choose one');
  });

  it('report: one way of naming the period; --markdown, --json and --html apart; --force with --send', () => {
    expect(report.parse({ period: 'week', last: true }, line())).toEqual({ period: 'week', last: true });
    expect(() => report.parse({ period: 'week', last: true, month: '2026-10' }, line())).toThrow('--last and --month each name the period; give one of them');
    expect(() => report.parse({ period: 'month', month: '2026-10' }, line(['period']))).toThrow('--period goes with --last');
    expect(() => report.parse({ period: 'week', markdown: true }, line([], { json: true }))).toThrow('--markdown and --json each print the whole report; choose one');
    expect(() => report.parse({ period: 'week', force: true }, line())).toThrow('--force goes with --send');
  });

  it('metrics: stdout, a file, or served at HOST:PORT; never --json', () => {
    expect(metrics.parse({}, line())).toEqual({ to: 'stdout' });
    expect(metrics.parse({ textfile: 't.prom' }, line())).toEqual({ to: 'textfile', path: 't.prom' });
    expect(metrics.parse({ serve: true }, line())).toEqual({ to: 'serve', host: '127.0.0.1', port: 9464, where: '127.0.0.1:9464' });
    expect(metrics.parse({ serve: '[::1]:17801' }, line())).toEqual({ to: 'serve', host: '::1', port: 17801, where: '[::1]:17801' });
    expect(() => metrics.parse({ serve: 'localhost:99999' }, line())).toThrow('--serve "localhost:99999" is not HOST:PORT');
    expect(() => metrics.parse({ serve: true, textfile: 'x' }, line())).toThrow('--textfile and --serve each say where the metrics go; give one of them');
    expect(() => metrics.parse({}, line([], { json: true }))).toThrow('tally metrics prints the Prometheus text format');
  });

  it('mcp: stdio, or HTTP at an address (any free port by default); no data flags', () => {
    expect(mcp.parse({}, line())).toEqual({ http: undefined });
    expect(mcp.parse({ http: true }, line())).toEqual({ http: '127.0.0.1:' });
    expect(mcp.parse({ http: '127.0.0.1:8765' }, line())).toEqual({ http: '127.0.0.1:8765' });
    expect(() => mcp.parse({}, line([], { jq: true }))).toThrow('tally mcp speaks the Model Context Protocol');
  });

  it('statusline and guard: a prompt line and a hook take none of the output flags; a refresh names its session', () => {
    expect(statusline.parse({ maxAge: '60', refresh: true, sessionId: 's-1', sessionStart: '1764000000' }, line())).toEqual({ format: undefined, maxAge: 60, check: false, refresh: true, session: { id: 's-1', start: 1764000000 } });
    expect(() => statusline.parse({ maxAge: '60' }, line([], { wide: true }))).toThrow('--wide does not apply to statusline');
    expect(() => statusline.parse({ maxAge: '60', sessionId: 'a b' }, line())).toThrow('--session-id is not a session id');
    const hook = guard.parse({ maxAge: '60', maxSessionSpend: '10', budget: ['monthly', 'monthly'] }, line());
    expect([hook.limits.maxSession?.toFixed(), hook.limits.budgets, hook.maxAge, hook.failClosed, hook.session]).toEqual(['10', ['monthly'], 60, false, undefined]);
    expect(guard.parse({ maxAge: '0', maxDailyUsed: '90%', refresh: true, sessionId: 's', sessionStart: '5' }, line()).session).toEqual({ id: 's', start: 5 });
    expect(() => guard.parse({ maxAge: '60' }, line())).toThrow('name a limit: --budget NAME, --max-session-spend AMOUNT or --max-daily-used SHARE');
    expect(() => guard.parse({ maxAge: '60', maxSessionSpend: '10' }, line([], { json: true }))).toThrow('--json does not apply to guard');
  });

  it('check: the gates typed, with the flags they came from', () => {
    const request = check.parse({ minBalance: '100', maxDailyUsed: '80%', failOpen: true }, line());
    expect([request.minBalance?.toFixed(), request.maxDaily?.kind, request.options.failOpen]).toEqual(['100', 'percent', true]);
    expect(() => check.parse({ minBalance: 'lots' }, line())).toThrow(/--min-balance/);
  });

  it('sandbox: numbers in range, faults by kind, its clock in ISO 8601', () => {
    // The defaults the parser gives every line.
    const given = { port: '0', utcOffset: '+00:00', naming: 'compact', compatWrap: 'code-true', compatUnits: 'stated', callLog: true } as const;
    const request = sandbox.parse({ ...given, seed: '7', fault: ['rate-limit:2'], now: '2026-11-20T10:00:00Z', utcOffset: '+08:00', tls: true });
    expect(request).toMatchObject({ world: { port: 0, seed: 7 }, now: Date.UTC(2026, 10, 20, 10), tls: true, faults: [{ kind: 'rate-limit', times: 2 }] });
    expect(() => sandbox.parse({ ...given, port: '70000' })).toThrow(/--port/);
    expect(() => sandbox.parse({ ...given, fault: ['ratelimit'] })).toThrow('--fault "ratelimit": unknown kind');
    expect(() => sandbox.parse({ ...given, now: '1999-01-01' })).toThrow('--now "1999-01-01" is not a time between 2000 and 2099');
  });

  it('demo, version, doctor: nothing to ask; the tour takes no data format', () => {
    expect(version.parse()).toEqual({});
    expect(doctor.parse()).toEqual({});
    expect(demo.parse({}, line())).toEqual({});
    expect(() => demo.parse({}, line([], { json: true }))).toThrow('tally demo is a tour for people');
  });
});

describe('the registry', () => {
  it('every command is its declared flags (or words), a parse and a run of the request and the context', async () => {
    for (const entry of COMMANDS) {
      const module = await entry.load();
      expect([entry.name, module.flags !== undefined || typeof module.configure === 'function', typeof module.parse, typeof module.run]).toEqual([entry.name, true, 'function', 'function']);
      // A flag is declared once: configure adds words (arguments, subcommands), never an option of its own.
      if (module.configure) {
        const { Command } = await import('commander');
        const bare = new Command(entry.name);
        module.configure(bare);
        expect([entry.name, bare.options.map((o) => o.long)]).toEqual([entry.name, []]);
      }
      expect([entry.name, module.run.length]).toEqual([entry.name, 2]);
      // A command that runs in the fleet's rows brings its row's columns; no other has one.
      expect([entry.name, entry.fleet === 'rows' ? (module.fleetRow?.columns.length ?? 0) > 0 : module.fleetRow === undefined]).toEqual([entry.name, true]);
    }
  });
});
