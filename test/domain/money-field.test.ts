// Which field is money where the names are not published: one rule for buckets, records and the log.
import { describe, expect, it } from 'vitest';
import { moneyFieldOf } from '../../src/domain/money-field.js';

describe('the money field', () => {
  it.each([
    [['unit_price', 'cost'], 'cost'],
    [['price_per_token', 'billed'], 'billed'],
    [['quota', 'price'], 'quota'],
    [['list_price', 'x'], 'list_price'],
    [['price_per_million'], 'price_per_million'],
    [['a', 'b'], 'a'],
    [[], undefined],
    [['FEE', 'amount'], 'FEE'],
  ] as const)('among %j is %j', (names, money) => {
    expect(moneyFieldOf(names)).toBe(money);
  });
});
