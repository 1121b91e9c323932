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

const line = (given: string[] = [], output: Partial<CommandLine['output']> = {}): CommandLine => ({ args: [], given: (name) => given.includes(name), output: { json: false, csv: false, ...output } });

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
    expect(() => usage.parse({ bucket: 'day', ...flags }, line([...given], output))).toThrow(message);
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
