// Property-based tests: the parsers either give a correct answer or a typed error, whatever comes in.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UsageError } from '../../src/errors.js';
import { formatAmount } from '../../src/output/money.js';
import { Decimal, MalformedAmount, moneyFromNumber, moneyFromString } from '../../src/domain/money.js';
import { exactKeyCount, parseJson, stringifyJson } from '../../src/domain/json.js';
import { parseTimeSpec, resolveWindow } from '../../src/domain/window.js';
import { UTC } from '../../src/domain/zone.js';
import { per1M } from '../../src/domain/catalog.js';
import { mockGateway, testClient } from '../helpers.js';
import { parseAmount } from '../../src/flags/amount-flags.js';

const NOW = 1_795_300_000;
const decimalText = fc.tuple(fc.boolean(), fc.stringMatching(/^\d{1,12}$/), fc.stringMatching(/^\d{0,8}$/)).map(([neg, whole, fraction]) => `${neg ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`);

describe('adversarial: fuzzing', () => {
  it('money from a decimal string is exact, anything else is MalformedAmount', () => {
    fc.assert(
      fc.property(fc.oneof(decimalText, fc.string(), fc.constantFrom('NaN', 'Infinity', '1e400', '12.3.4', '-', '.5', '5.', ' 1')), (text) => {
        try {
          const amount = moneyFromString(text, 'x');
          return amount.eq(new Decimal(text)) && /^-?\d+(\.\d+)?$/.test(text);
        } catch (error) {
          return error instanceof MalformedAmount;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('money from a JSON number keeps every digit, or is MalformedAmount', () => {
    fc.assert(
      fc.property(fc.oneof(decimalText, fc.double().map(String), fc.stringMatching(/^-?\d{1,25}(\.\d{1,25})?(e[+-]?\d{1,4})?$/)), (text) => {
        let value: unknown;
        try {
          value = parseJson(text);
        } catch {
          return true;
        }
        try {
          const amount = moneyFromNumber(value, 'x');
          return amount.eq(new Decimal(text)) && stringifyJson(value) === text;
        } catch (error) {
          return error instanceof MalformedAmount;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('formatting and per-1M conversion never lose a digit', () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const shown = formatAmount(text, 'account', { exact: true }).replace(/[¥,]/g, '');
        return new Decimal(shown).eq(text) && new Decimal(per1M(text)).eq(new Decimal(text).mul(1000));
      }),
      { numRuns: 3000 },
    );
  });

  it('the HTTP core turns any body into data or a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.json(), fc.constantFrom('{"a":1,"a":2}', '[', '{"error":null}', '\u0000')), async (body) => {
        const gw = mockGateway();
        gw.pool.intercept({ path: '/v1/open/balance' }).reply(200, body);
        try {
          await testClient(gw.transport).requestJson({ path: '/v1/open/balance', family: 'native', auth: 'any' });
          return true;
        } catch (error) {
          return (error as { exitCode?: number }).exitCode === 1;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('window parsing gives an ordered, aligned window or a UsageError', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.option(fc.oneof(fc.string(), fc.constantFrom('now', '7d', '2026-11-01', '1790000000'))), fc.constantFrom('hour', 'day', 'week', 'month') as fc.Arbitrary<'hour' | 'day' | 'week' | 'month'>, (since, until, bucket) => {
        try {
          const w = resolveWindow({ bucket, since: since ?? undefined, until: until ?? undefined, now: NOW, zone: UTC, dayOffset: 0 });
          return w.start < w.end && w.start % 3600 === 0 && w.end % 3600 === 0;
        } catch (error) {
          return error instanceof UsageError;
        }
      }),
      { numRuns: 3000 },
    );
    expect(() => parseTimeSpec('\u0000', { now: NOW, anchor: NOW, zone: UTC })).toThrow(UsageError);
  });

  it('check amounts are decimals or a UsageError', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          return parseAmount(text, '--min-balance').gte(0);
        } catch (error) {
          return error instanceof UsageError;
        }
      }),
      { numRuns: 2000 },
    );
  });
});


describe('adversarial: the fast JSON path', () => {
  const numberText = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc.stringMatching(/^-?(0|[1-9]\d{0,20})(\.\d{1,20})?([eE][+-]?\d{1,3})?$/),
    fc.constantFrom('0.0000001', '1e21', '-0', '-0.0', '0.10', '123456789012345678', '9007199254740993', '1.5'),
  );

  it('gives back every number exactly as written, fast path or not', () => {
    fc.assert(
      fc.property(fc.array(numberText, { maxLength: 5 }), (numbers) => {
        const text = `{"n":[${numbers.join(',')}],"s":"0.50"}`;
        return stringifyJson(parseJson(text)) === text;
      }),
      { numRuns: 5000 },
    );
  });

  it('the same in long texts, compact or spaced, and a duplicate key is refused there too', () => {
    const pad = 'x'.repeat(1100);
    fc.assert(
      fc.property(fc.array(numberText, { maxLength: 5 }), fc.constantFrom('', ' ', '\n'), fc.boolean(), (numbers, space, duplicate) => {
        const text = `{"pad":"${pad}",${space}"n":[${numbers.join(`,${space}`)}],"s":"0.50"${duplicate ? ',"s":"0.5"' : ''}}${space}`;
        let written: string;
        try {
          written = stringifyJson(parseJson(text));
        } catch (error) {
          return duplicate && /Duplicate key/.test((error as Error).message);
        }
        return !duplicate && written === text.replace(/\s/g, '');
      }),
      { numRuns: 3000 },
    );
  });

  it('the one-pass proof passes a number only when a double gives it back as written', () => {
    const token = fc.oneof(
      numberText,
      fc.stringMatching(/^-?0\.0{0,8}[1-9]\d{0,12}$/),
      fc.stringMatching(/^-?[1-9]\d{0,24}$/),
      fc.stringMatching(/^-?[1-9]\d{0,10}\.\d{1,10}$/),
    );
    fc.assert(
      fc.property(token, (text) => {
        if (exactKeyCount(`[${text}]`) === undefined) return true;
        return String(Number(text)) === text;
      }),
      { numRuns: 20000 },
    );
    // Sent this way by most services: the fast path takes them.
    for (const text of ['0', '-5', '271979', '0.5', '-0.000001', '123456789012345', '9007199254740991']) expect(exactKeyCount(`[${text}]`)).toBe(0);
  });

  it('counts keys, not strings that look like them', () => {
    expect(exactKeyCount('{"a": "x\\":", "b" :1, "c\\\\": [ "d", {"e":"f:"} ]}')).toBe(4);
    expect(exactKeyCount('["a:", "b" , "c"]')).toBe(0);
  });

  it('counts every key of any JSON text, whatever its strings and spacing hold', () => {
    const keysOf = (value: unknown): number => {
      if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + keysOf(item), 0);
      if (value === null || typeof value !== 'object') return 0;
      return Object.entries(value).reduce((sum, [, item]) => sum + 1 + keysOf(item), 0);
    };
    // Strings full of quotes, backslashes and colons: the ones a scan can lose its place in.
    const tricky = fc.string({ unit: fc.constantFrom('"', '\\', ':', 'a', ' ', '\u00e9', '\ud83d\ude00') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.boolean(), fc.constant(null), tie('list'), tie('record')),
      list: fc.array(tie('node'), { maxLength: 4 }),
      record: fc.dictionary(tricky, tie('node'), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 1, '\t'), (v, indent) => {
        const text = JSON.stringify(v, undefined, indent);
        return exactKeyCount(text) === keysOf(JSON.parse(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives up on a string that never closes instead of scanning forever', () => {
    for (const text of ['["abc', '{"a\\"', '["x\\\\\\"]']) expect(exactKeyCount(text)).toBeUndefined();
  });

  it('rejects a duplicate key even when nothing else would send it down the slow path', () => {
    expect(() => parseJson('{"balance": "1.00", "balance": "2.00"}')).toThrow(/Duplicate key/);
    expect(() => parseJson('{"a": {"b": 1, "b": 2}}')).toThrow(/Duplicate key/);
    expect(stringifyJson(parseJson('{"a": "x\\":", "b": 1}'))).toBe('{"a":"x\\":","b":1}');
  });
});

describe('adversarial: ordering decimal text', () => {
  it('orders decimal strings exactly as Decimal does', async () => {
    const { compareDecimalText } = await import('../../src/domain/decimal-text.js');
    const text = fc.tuple(fc.boolean(), fc.stringMatching(/^\d{1,6}$/), fc.stringMatching(/^\d{0,8}$/)).map(([neg, w, f]) => `${neg ? '-' : ''}${w}${f ? `.${f}` : ''}`);
    fc.assert(
      fc.property(text, text, (a, b) => Math.sign(compareDecimalText(a, b)) === new Decimal(a).comparedTo(new Decimal(b))),
      { numRuns: 5000 },
    );
  });
});

describe('adversarial: the fast JSON writer', () => {
  it('writes what the lossless writer writes', async () => {
    const { stringify } = await import('lossless-json');
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => stringifyJson(value, indent) === (stringify(value, undefined, indent) ?? 'null')),
      { numRuns: 3000 },
    );
  });
});
