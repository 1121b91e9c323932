// `tally check --notify NAME`: after the checks, one message per condition that starts to warn
// or fail, gets worse, or passes again (domain/alerts.ts decides), to each destination named.
// Under a lock, so that two cron runs at once never both send; the state is written after the
// sending, and a failed delivery leaves the condition as it was remembered, so the next run
// tries again. Delivery never changes the check's exit code: a failure is a warning.
import type { Context } from '../context.js';
import { TallyError } from '../errors.js';
import { type CheckLevel, decideAlert } from '../domain/alerts.js';
import { alertKey, alertStatePath, readAlertState, writeAlertState } from '../settings/alert-state.js';
import { withRunLock } from '../locking.js';
import type { Alert } from './payloads.js';
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
      for (const destination of destinations) {
        for (const check of checks) {
          const key = alertKey(destination.name, check.name);
          const decision = decideAlert(state.conditions[key], check.level, check.period);
          if (decision.send && !corrupt) {
            const alert: Alert = {
              profile,
              check: check.name,
              level: decision.send,
              actual: check.actual,
              limit: check.limit,
              unit: check.unit,
              message: `tally (${profile}): ${decision.send === 'resolved' ? 'resolved' : decision.send.toUpperCase()} ${check.name}: ${check.text}`,
              at,
            };
            try {
              await deliver(ctx, destination, alert);
            } catch (error) {
              if (!(error instanceof TallyError) || error.kind === 'interrupted') throw error;
              // Not recorded: the next run sends it again.
              ctx.warn(`the ${decision.send} alert for ${check.name} was not delivered: ${error.message}; it is tried again on the next run`);
              continue;
            }
          }
          if (decision.next) state.conditions[key] = decision.next;
          else delete state.conditions[key];
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
