// `tally check --notify NAME`: after the checks, one message per condition that starts to warn
// or fail, gets worse, or passes again (domain/alerts.ts decides), to each destination named.
// Under a lock, so that two cron runs at once never both send; the state is written after the
// sending, and a failed delivery leaves the condition as it was remembered, so the next run
// tries again. Delivery never changes the check's exit code: a failure is a warning.
import type { Context } from '../context.js';
import { TallyError } from '../errors.js';
import { type AlertLevel, type CheckLevel, decideAlert, droppedConditions } from '../domain/alerts.js';
import { alertKey, alertStatePath, readAlertState, writeAlertState } from '../settings/alert-state.js';
import { withRunLock } from '../locking.js';
import type { Alert, AlertWindow } from './payloads.js';
import { type Destination, deliver } from './send.js';

export interface WatchedCheck {
  name: string;
  level: CheckLevel;
  actual: string | null;
  limit: string;
  unit: string;
  /** The check in words, as its line shows it. */
  text: string;
  /** Budget gates: the start of the period the level belongs to. */
  period?: number;
  /** Whose spend it measured (budgets, findings), and over which window. */
  scope?: 'account' | 'key' | null;
  window?: AlertWindow;
}

export async function notifyChecks(ctx: Context, profile: string, destinations: Destination[], all: WatchedCheck[]): Promise<void> {
  // `--budget NAME` and `--warn-budget NAME` are one condition (budget:NAME): its worst level counts.
  const rank = { pass: 0, warn: 1, fail: 2 } as const;
  const byName = new Map<string, WatchedCheck>();
  for (const check of all) {
    const seen = byName.get(check.name);
    if (!seen || rank[check.level] > rank[seen.level]) byName.set(check.name, check);
  }
  const checks = [...byName.values()];
  const [client, stateDir] = await Promise.all([ctx.client(), ctx.stateDir()]);
  const path = alertStatePath(stateDir, profile, client.baseUrl, client.credential?.secret);
  const at = new Date(ctx.now()).toISOString();
  try {
    await withRunLock(ctx, `${path}.lock`, 'the alert memory', async () => {
      const { state, corrupt } = readAlertState(path);
      // The state must be writable before anything is sent: one that cannot be written would have
      // every run send the same alerts again.
      writeAlertState(path, state);
      if (corrupt) ctx.warn(`the alert state ${path} was not one tally wrote; it is rebuilt from this run's results, and nothing is sent for conditions already failing (alerts resume from now)`);
      const alertOf = (check: WatchedCheck, level: AlertLevel, text: string): Alert => ({
        profile,
        check: check.name,
        level,
        actual: level === 'resolved' && text !== check.text ? null : check.actual,
        limit: check.limit,
        unit: check.unit,
        message: `tally (${profile}): ${level === 'resolved' ? 'resolved' : level.toUpperCase()} ${check.name}: ${text}`,
        at,
        ...(check.scope === undefined ? {} : { scope: check.scope }),
        ...(check.window ? { window: check.window } : {}),
      });
      // True when delivered; a failure is said and left to the next run.
      const sent = async (destination: Destination, alert: Alert): Promise<boolean> => {
        try {
          await deliver(ctx, destination, alert);
          return true;
        } catch (error) {
          if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
          ctx.warn(`the ${alert.level} alert for ${alert.check} was not delivered: ${error.message}; it is tried again on the next run`);
          return false;
        }
      };
      for (const destination of destinations) {
        for (const check of checks) {
          const key = alertKey(destination.name, check.name);
          const decision = decideAlert(state.conditions[key], check.level, check.period);
          // The last period's alert is closed before this one's is said; undelivered, it stays remembered for the next run.
          if (decision.closes && !corrupt) {
            if (!(await sent(destination, alertOf(check, 'resolved', `a new period began (the ${decision.closes.level} of the last one no longer holds); ${check.text}`)))) continue;
            delete state.conditions[key];
          }
          if (decision.send && !corrupt && !(await sent(destination, alertOf(check, decision.send, check.text)))) continue;
          if (decision.next) state.conditions[key] = decision.next;
          else delete state.conditions[key];
        }
        // Findings remembered from earlier runs that this run's check no longer finds: closed.
        const prefix = alertKey(destination.name, '');
        const remembered = Object.keys(state.conditions).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
        for (const name of droppedConditions(remembered, checks.map((c) => c.name))) {
          const gone: WatchedCheck = { name, level: 'pass', actual: null, limit: '', unit: 'finding', text: 'no longer found in the window checked' };
          if (corrupt || (await sent(destination, alertOf(gone, 'resolved', gone.text)))) delete state.conditions[alertKey(destination.name, name)];
        }
      }
      writeAlertState(path, state);
    });
  } catch (error) {
    // Ctrl-C ends the run; anything else (a lock held past --timeout, a memory that cannot be
    // written) is a delivery problem, which never changes the check's exit code: a warning.
    if (error instanceof TallyError && error.kind === 'interrupted') throw error;
    if (!(error instanceof TallyError)) throw error;
    ctx.warn(`alerts were not sent: ${error.message}`);
  } finally {
    ctx.progress(undefined);
  }
}
