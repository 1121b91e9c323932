// When a condition that `tally check --notify` watches sends a message: once when it starts to
// warn or fail, once more when it gets worse (warn → fail), and one `resolved` when it passes
// again; nothing while it stays where it was, however often cron runs the check. A budget gate
// is remembered within its period: a new period is a new condition. Pure: given what was
// remembered and this run's level, the message to send (if any) and what to remember.

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
  send: AlertLevel | undefined;
  next: AlertMemory | undefined;
}

const RANK = { pass: 0, warn: 1, fail: 2 } as const;

export function decideAlert(remembered: AlertMemory | undefined, level: CheckLevel, period?: number): AlertDecision {
  // A new period of a budget: what was notified in the last one no longer holds.
  const memory = remembered && period !== undefined && remembered.period !== period ? undefined : remembered;
  if (level === 'pass') return { send: memory ? 'resolved' : undefined, next: undefined };
  const next: AlertMemory = period === undefined ? { level } : { level, period };
  if (!memory) return { send: level, next };
  if (RANK[level] > RANK[memory.level]) return { send: level, next };
  // The same level, or better without passing (fail → warn): no message; a later fail is worse again.
  return { send: undefined, next };
}
