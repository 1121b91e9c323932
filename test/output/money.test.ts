import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from '../../src/domain/money.js';
import { formatAmount, formatCount, formatPercent, groupDigits, partsOnThePage, roundHalfUp } from '../../src/output/money.js';

describe('the number policy', () => {
  it.each([
    ['5770.9511768', 'account', '¥5,770.95'],
    ['50', 'account', '¥50.00'],
    ['0.005', 'account', '¥0.01'],
    ['0.00499999', 'account', '<¥0.01'],
    ['-0.001', 'account', '-<¥0.01'],
    ['0', 'account', '¥0.00'],
    ['0.00000000', 'account', '¥0.00'],
    ['-1234567.891', 'account', '-¥1,234,567.89'],
    ['99999999999.99999999', 'account', '¥100,000,000,000.00'],
    ['1e3', 'account', '¥1,000.00'],
    ['0.875', 'unit-price', '¥0.8750'],
    ['35', 'unit-price', '¥35.0000'],
    ['0.00002', 'unit-price', '<¥0.0001'],
    ['0.01234567', 'per-call', '¥0.0123'],
    ['0.00005', 'per-call', '¥0.0001'],
  ] as const)('shows %s as a %s amount: %s', (text, kind, shown) => {
    expect(formatAmount(text, kind)).toBe(shown);
  });

  it('shows every digit the service sent with --exact, grouped', () => {
    expect(formatAmount('5770.95117680', 'account', { exact: true })).toBe('¥5,770.95117680');
    expect(formatAmount('0.00000001', 'account', { exact: true })).toBe('¥0.00000001');
    expect(formatAmount('-12', 'unit-price', { exact: true })).toBe('-¥12');
  });

  it('labels another currency with its code after the amount, never with $', () => {
    expect(formatAmount('12.3', 'account', { currency: 'USD' })).toBe('12.30 USD');
    expect(formatAmount('12.3', 'account', { currency: 'U\u001bD' })).toBe('12.30 U\\eD');
  });

  it('groups counts, keeps a fraction as sent, and writes an exponent out', () => {
    expect(formatCount('271979')).toBe('271,979');
    expect(formatCount('1234.5')).toBe('1,234.5');
    expect(formatCount('-1000000')).toBe('-1,000,000');
    expect(formatCount('1.5e3')).toBe('1,500');
    expect(groupDigits('1234567')).toBe('1,234,567');
  });

  it('shows a share with one decimal, and a sliver as <0.1%', () => {
    expect(formatPercent(new Decimal('15.5'), new Decimal('20'))).toBe('77.5%');
    expect(formatPercent(new Decimal('0.001'), new Decimal('50'))).toBe('<0.1%');
    expect(formatPercent(new Decimal('0'), new Decimal('50'))).toBe('0.0%');
    expect(formatPercent(new Decimal('1'), new Decimal('0'))).toBe('—');
  });

  it('rounds half up exactly as decimal.js does (property)', () => {
    const decimal = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 6 })).map(([negative, digits, scale, to]) => {
      const text = digits.toString().padStart(scale + 1, '0');
      const value = scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
      return { text: negative ? `-${value}` : value, to };
    });
    fc.assert(
      fc.property(decimal, ({ text, to }) => new Decimal(roundHalfUp(text, to)).eq(new Decimal(text).toDecimalPlaces(to, Decimal.ROUND_HALF_UP))),
      { numRuns: 3000 },
    );
  });

  it('never shows a nonzero amount as zero, and shows exactly the column decimals (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.constantFrom('account', 'unit-price', 'per-call' as const), (units, kind) => {
        const text = (units < 0n ? '-' : '') + `${(units < 0n ? -units : units) / 10n ** 8n}.${String((units < 0n ? -units : units) % 10n ** 8n).padStart(8, '0')}`;
        const shown = formatAmount(text, kind);
        const decimals = kind === 'account' ? 2 : 4;
        const zeroShown = /^-?¥0\.0+$/.test(shown);
        return (units === 0n || !zeroShown) && new RegExp(`\\.\\d{${decimals}}$`).test(shown);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parts of a whole on the page', () => {
  it('add up as shown: the part and the whole rounded, the rest what is left between them (property)', () => {
    const amount = fc.bigInt({ min: 0n, max: 10n ** 14n }).map((n) => new Decimal(n.toString()).div(1e8));
    fc.assert(
      fc.property(amount, amount, fc.boolean(), (a, b, exact) => {
        const [part, whole] = a.lte(b) ? [a, b] : [b, a];
        const shown = partsOnThePage(whole, part, 'account', exact);
        expect(shown.part.plus(shown.rest).eq(shown.whole)).toBe(true);
        if (exact) expect([shown.whole.eq(whole), shown.part.eq(part)]).toEqual([true, true]);
        else expect(shown.whole.decimalPlaces() <= 2 && shown.part.decimalPlaces() <= 2 && shown.rest.decimalPlaces() <= 2).toBe(true);
        // Never more than half a fen from the exact rest.
        expect(shown.rest.minus(whole.minus(part)).abs().lte('0.01')).toBe(true);
      }),
      { numRuns: 1000 },
    );
    const example = partsOnThePage(new Decimal('14.31649'), new Decimal('2.54499'), 'account');
    expect([example.part.toFixed(2), example.rest.toFixed(2), example.whole.toFixed(2)]).toEqual(['2.54', '11.78', '14.32']);
  });
});
