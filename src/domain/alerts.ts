// When a condition that `tally check --notify` watches sends a message: once when it starts to
// warn or fail, once more when it gets worse (warn → fail), and one `resolved` when it passes
// again; nothing while it stays where it was, however often cron runs the check. A budget gate
// is remembered within its period: a new period is a new condition, and what was notified in the
// last one is closed with a `resolved`; a finding that is no longer found is resolved too. Pure:
// given what was remembered and this run's level, the messages to send and what to remember.

export type CheckLevel = 'pass' | 'warn' | 'fail';
/** `test`: what `tally notify test` sends, which is neither a warning nor a resolution. */
export type AlertLevel = 'warn' | 'fail' | 'resolved' | 'test';

/** What is remembered of a condition that was notified (nothing is remembered of one that passes). */
export interface AlertMemory {
  level: 'warn' | 'fail';
  /** For budget gates, the period it was notified in (its start, Unix seconds). */
  period?: number;
}

export interface AlertDecision {
  /** What was notified in a budget's last period, closed with a `resolved` first: a new period began. */
  closes?: AlertMemory;
  send: AlertLevel | undefined;
  next: AlertMemory | undefined;
}

const RANK = { pass: 0, warn: 1, fail: 2 } as const;

export function decideAlert(remembered: AlertMemory | undefined, level: CheckLevel, period?: number): AlertDecision {
  // A new period of a budget: what was notified in the last one no longer holds, and is closed.
  const newPeriod = remembered !== undefined && period !== undefined && remembered.period !== period;
  const memory = newPeriod ? undefined : remembered;
  const closes = newPeriod ? { closes: remembered } : {};
  if (level === 'pass') return { ...closes, send: memory ? 'resolved' : undefined, next: undefined };
  const next: AlertMemory = period === undefined ? { level } : { level, period };
  if (!memory) return { ...closes, send: level, next };
  if (RANK[level] > RANK[memory.level]) return { send: level, next };
  // The same level, or better without passing (fail → warn): no message; a later fail is worse again.
  return { send: undefined, next };
}

/** Conditions that are findings of a check (one per anomaly found): `anomalies:KIND:WHEN:MODEL`. */
const FOUND = /^(?:warn-)?anomalies:/;

/**
 * The remembered conditions this run no longer has: findings of a check that ran (the anomalies
 * gate) which it did not find again (they left the window, or went away). Each gets a `resolved`;
 * conditions of checks this run did not make (another command line's) are left alone.
 */
export function droppedConditions(remembered: readonly string[], checked: readonly string[]): string[] {
  const family = (name: string) => name.split(':')[0]!;
  const ran = new Set(checked.map(family));
  const seen = new Set(checked);
  return remembered.filter((name) => FOUND.test(name) && ran.has(family(name)) && !seen.has(name));
}
