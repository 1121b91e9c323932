// The ledger's append, as a property: any sequence of appends, some at once, over any windows
// (each writing only the periods that have ended by its own clock), leaves each ended period in
// the file once, with every row it had, summing to what the usage said of it.
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { type LedgerRow, readHeldPeriods } from '../../src/domain/ledger-format.js';
import { appendLedger, heldDates, openLedger, readLedger } from '../../src/figures/ledger-append.js';
import { readLedgerFile } from '../../src/settings/ledger-file.js';
import { tempDir, testContext } from '../helpers.js';

const GATEWAY = 'https://gw.example/';
const day = (d: number) => `2026-11-${String(d + 1).padStart(2, '0')}`;
/** What "usage" says of a day: two or three models, amounts that depend on the day alone. */
function usageOf(d: number): LedgerRow[] {
  const models = d % 3 === 0 ? ['a', 'b', 'c'] : ['a', 'b'];
  return models.map((model, i) => ({ date: day(d), zone: 'UTC+08:00', profile: 'main', gateway: GATEWAY, scope: 'key', model, calls: String(d + i), input_tokens: '', output_tokens: '', amount: new Decimal(d + 1).div(7 + i).toDecimalPlaces(8).toFixed(), currency: 'CNY', complete: true }));
}

describe('export --append over any sequence of runs', () => {
  it.each(['csv', 'ndjson'] as const)('%s: each ended period once, summing to usage', async (format) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ from: fc.nat(20), length: fc.integer({ min: 1, max: 7 }), ended: fc.nat(28), together: fc.boolean() }), { minLength: 1, maxLength: 6 }), async (runs) => {
        const dir = tempDir();
        const { ctx } = testContext({ env: { TALLY_CONFIG_DIR: `${dir.path}/state` } });
        try {
          const path = `${dir.path}/ledger.${format}`;
          const run = async (r: (typeof runs)[number]) => {
            // A run reads the file (as export does before asking the gateway), leaves out what it holds and what has not ended, then appends.
            const { file, held } = openLedger(path, format, true);
            const have = heldDates(held, file, 'main', GATEWAY).dates;
            const days = Array.from({ length: r.length }, (_, i) => r.from + i).filter((d) => d < r.ended && !have.has(day(d)));
            await appendLedger(ctx, file, days.flatMap(usageOf), 'day');
          };
          for (const r of runs) await (r.together ? Promise.all([run(r), run(r)]) : run(r));
          const text = readLedgerFile(path);
          const held = readHeldPeriods(text, format, true);
          const rows = format === 'csv' ? text.trim().split('\r\n').slice(1).map((l) => l.split(',')) : text.trim().split('\n').filter(Boolean).map((l) => Object.values(JSON.parse(l)).map(String));
          const expected = new Set(runs.flatMap((r) => Array.from({ length: r.length }, (_, i) => r.from + i).filter((d) => d < r.ended)));
          expect(new Set([...held.held.keys()].map((k) => k.split('\u0000')[2]))).toEqual(new Set([...expected].map(day)));
          for (const d of expected) {
            const ofDay = rows.filter((r) => r[0] === day(d));
            // Every row of the day once (no period written twice, none in part).
            expect(ofDay.map((r) => r[5]).sort()).toEqual(usageOf(d).map((r) => r.model).sort());
            expect(ofDay.reduce((a, r) => a.plus(r[9]!), new Decimal(0)).toFixed()).toBe(usageOf(d).reduce((a, r) => a.plus(r.amount), new Decimal(0)).toFixed());
          }
          // The file reads back as a ledger: a whole number of valid rows.
          expect(() => readLedger({ path, target: path, format, header: true })).not.toThrow();
        } finally {
          await ctx.dispose();
          rmSync(dir.path, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});
