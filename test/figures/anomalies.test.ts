// Dating model findings by their event (figures/anomalies.ts datedByEvent): whatever the days,
// each finding gets its own first (or last) day exactly, and no round asks for more windows than
// go out at once.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { type Finding, datedByEvent } from '../../src/figures/anomalies.js';
import type { ModelSpendOver } from '../../src/figures/usage-by-model.js';
import { MAX_CONNECTIONS_PER_ORIGIN, MAX_STREAMS_TOGETHER } from '../../src/api/transport-types.js';
import { Decimal } from '../../src/domain/money.js';
import { type UsageWindow, periodsOf } from '../../src/domain/window.js';

const DAY = 86_400;
const START = Date.UTC(2026, 9, 1) / 1000;

describe('dating a model finding by its event', () => {
  it('finds every first and last day exactly, one round of windows at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 92 }),
        fc.array(fc.record({ stopped: fc.boolean(), day: fc.nat(), spanDays: fc.nat({ max: 40 }) }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: MAX_CONNECTIONS_PER_ORIGIN }),
        // HTTP/1.1's connections, or an HTTP/2 session's streams.
        fc.constantFrom(MAX_CONNECTIONS_PER_ORIGIN, 16, MAX_STREAMS_TOGETHER),
        async (length, events, budget, perRound) => {
          const previous: UsageWindow = { start: START, end: START + length * DAY };
          const window: UsageWindow = { start: previous.end, end: previous.end + length * DAY };
          // Each model costs ¥1 a day over its days: a new one from its first day on, a stopped one up to its last.
          const spans = events.map((e, i) => {
            const within = e.stopped ? previous : window;
            const day = e.day % length;
            const first = e.stopped ? Math.max(0, day - e.spanDays) : day;
            const last = e.stopped ? day : Math.min(length - 1, day + e.spanDays);
            return { model: `m-${i}`, stopped: e.stopped, day, from: within.start + first * DAY, to: within.start + (last + 1) * DAY };
          });
          let inFlight = 0;
          let most = 0;
          const spendOver = async (w: UsageWindow): Promise<ModelSpendOver> => {
            most = Math.max(most, ++inFlight);
            await new Promise((resolve) => setImmediate(resolve));
            inFlight--;
            const spend = new Map<string, Decimal>();
            for (const s of spans) {
              const days = Math.max(0, (Math.min(w.end, s.to) - Math.max(w.start, s.from)) / DAY);
              if (days > 0) spend.set(s.model, new Decimal(days));
            }
            return { window: w, spend, unknown: [], fields: undefined, scope: 'key', incomplete: false, records: [] };
          };
          const found: Finding[] = spans.map((s) => ({ kind: s.stopped ? 'stopped_model' : 'new_model', model: s.model, start: window.start, end: window.end, amount: new Decimal(1), baseline: null, ratio: null }));
          await datedByEvent(spendOver, window, previous, 0, found, budget, perRound);
          expect(most).toBeLessThanOrEqual(Math.max(budget, perRound));
          for (const [i, f] of found.entries()) {
            const day = periodsOf(spans[i]!.stopped ? previous : window, 'day', 0)[spans[i]!.day]!;
            expect({ model: f.model, start: f.start, end: f.end }).toEqual({ model: f.model, start: day.start, end: day.end });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('rounds of dating over HTTP/2', () => {
  it('dates a new and a stopped model of 30-day windows in one round when 64 windows go out together, in three with HTTP/1.1\'s four', async () => {
    const length = 30;
    const previous: UsageWindow = { start: START, end: START + length * DAY };
    const window: UsageWindow = { start: previous.end, end: previous.end + length * DAY };
    const roundsFor = async (perRound: number) => {
      let rounds = 0;
      let pending = 0;
      const spendOver = async (w: UsageWindow): Promise<ModelSpendOver> => {
        if (pending++ === 0) rounds++;
        await new Promise((resolve) => setImmediate(resolve));
        pending--;
        const spend = new Map<string, Decimal>();
        // new-model from day 17 of the window, old-model up to day 9 of the one before.
        if (w.end > window.start + 17 * DAY) spend.set('new-model', new Decimal(1));
        if (w.start < previous.start + 10 * DAY) spend.set('old-model', new Decimal(1));
        return { window: w, spend, unknown: [], fields: undefined, scope: 'key', incomplete: false, records: [] };
      };
      const found: Finding[] = [
        { kind: 'new_model', model: 'new-model', start: window.start, end: window.end, amount: new Decimal(1), baseline: null, ratio: null },
        { kind: 'stopped_model', model: 'old-model', start: window.start, end: window.end, amount: new Decimal(0), baseline: new Decimal(1), ratio: new Decimal(0) },
      ];
      await datedByEvent(spendOver, window, previous, 0, found, perRound, perRound);
      expect(found.map((f) => f.start)).toEqual([window.start + 17 * DAY, previous.start + 9 * DAY]);
      return rounds;
    };
    expect(await roundsFor(MAX_STREAMS_TOGETHER)).toBe(1);
    expect(await roundsFor(MAX_CONNECTIONS_PER_ORIGIN)).toBe(3);
  });
});
