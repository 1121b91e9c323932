import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AlertMemory, type CheckLevel, decideAlert, droppedConditions } from '../../src/domain/alerts.js';

/** Runs a sequence of check results through the rule: the messages sent. */
function messages(levels: CheckLevel[], periods?: number[]) {
  let memory: AlertMemory | undefined;
  const sent: string[] = [];
  levels.forEach((level, i) => {
    const decision = decideAlert(memory, level, periods?.[i]);
    if (decision.closes) sent.push('resolved (a new period began)');
    if (decision.send) sent.push(decision.send);
    memory = decision.next;
  });
  return sent;
}

describe('decideAlert', () => {
  it('sends once when a condition starts failing, once when it gets worse, once resolved, nothing in between', () => {
    expect(messages(['pass', 'pass', 'warn', 'warn', 'warn', 'fail', 'fail', 'warn', 'fail', 'pass', 'pass'])).toEqual(['warn', 'fail', 'fail', 'resolved']);
    expect(messages(['fail', 'fail', 'pass', 'fail'])).toEqual(['fail', 'resolved', 'fail']);
  });

  it('starts afresh in a new period of a budget, closing what the last one opened', () => {
    expect(messages(['fail', 'fail', 'fail'], [1, 1, 2])).toEqual(['fail', 'resolved (a new period began)', 'fail']);
    // A new period that passes: the last period's warning is closed, once.
    expect(messages(['warn', 'pass', 'pass'], [1, 2, 2])).toEqual(['warn', 'resolved (a new period began)']);
    expect(messages(['pass', 'warn', 'pass'], [1, 1, 2])).toEqual(['warn', 'resolved (a new period began)']);
  });

  it('resolves the findings of a check that ran and no longer found them, and nothing of checks it did not make', () => {
    const remembered = ['anomalies:spike:2026-11-20:', 'anomalies:new_model:2026-11-02:gpt-5', 'warn-anomalies:zero_cost:2026-11-01:x', 'min-balance', 'budget:monthly'];
    expect(droppedConditions(remembered, ['anomalies:spike:2026-11-20:', 'min-balance'])).toEqual(['anomalies:new_model:2026-11-02:gpt-5']);
    expect(droppedConditions(remembered, ['anomalies'])).toEqual(['anomalies:spike:2026-11-20:', 'anomalies:new_model:2026-11-02:gpt-5']);
    expect(droppedConditions(remembered, ['budget:monthly'])).toEqual([]);
  });

  it('sends exactly the messages the rule says, for any sequence of runs (property)', () => {
    const rank = { pass: 0, warn: 1, fail: 2 };
    fc.assert(
      fc.property(fc.array(fc.constantFrom<CheckLevel>('pass', 'warn', 'fail'), { maxLength: 60 }), (levels) => {
        // The rule restated: track the worst level since the last pass.
        const expected: string[] = [];
        let worst = 0;
        for (const level of levels) {
          if (level === 'pass') {
            if (worst > 0) expected.push('resolved');
            worst = 0;
          } else if (rank[level] > worst) {
            expected.push(level);
            worst = rank[level];
          } else if (worst === 2 && level === 'warn') {
            // Better without passing: nothing sent, and a later fail is worse than this warn.
            worst = 1;
          }
        }
        expect(messages(levels)).toEqual(expected);
        // Never two messages of one kind in a row without a change in between, and a resolved only after a warn or fail.
        const sent = messages(levels);
        sent.forEach((m, i) => {
          if (m === 'resolved') expect(i).toBeGreaterThan(0);
          if (i > 0 && m === 'resolved') expect(sent[i - 1]).not.toBe('resolved');
        });
      }),
      { numRuns: 2000 },
    );
  });
});
