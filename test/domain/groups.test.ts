// Spend per group: the groups and "unattributed" always add up to the total, each account (or
// key) counted once, whatever the profiles, identities and groups (property).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { UNATTRIBUTED, spendByGroup } from '../../src/domain/groups.js';

describe('spend by group', () => {
  it('adds up to the total, each identity once, unattributed kept (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { minLength: 1 }),
        fc.array(fc.nat(3)),
        fc.array(fc.integer({ min: 0, max: 2 })),
        fc.array(fc.integer({ min: 0, max: 10_000 })),
        (profiles, identityOf, groupOf, cents) => {
          const rows = profiles.map((profile, i) => ({ profile, identity: `id${identityOf[i] ?? i}`, spend: new Decimal(cents[identityOf[i] ?? i] ?? 0).div(100) }));
          const groups: Record<string, string[]> = {};
          profiles.forEach((p, i) => {
            const g = groupOf[i];
            if (g === undefined || g === 0) return;
            (groups[`g${g}`] ??= []).push(p);
          });
          const result = spendByGroup(rows, groups);
          expect(result.rows.map((r) => r.group).at(-1)).toBe(UNATTRIBUTED);
          expect(result.rows.reduce((sum, r) => sum.plus(r.spend), new Decimal(0)).eq(result.total)).toBe(true);
          const once = new Map(rows.map((r) => [r.identity, r.spend]));
          expect(result.total.eq([...once.values()].reduce((a, b) => a.plus(b), new Decimal(0)))).toBe(true);
          expect(result.rows.flatMap((r) => r.profiles).sort()).toEqual([...profiles].sort());
        },
      ),
    );
  });
});
